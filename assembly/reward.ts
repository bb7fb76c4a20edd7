// The rewards' WebAssembly module (npm run build:wasm; loaded by src/reward/fast-json.ts): the JSON reader and the
// seed rubric's scorer and the strong rubric's action checks over its records.
export {
  byteOffset,
  elementKindsBase,
  firstOpenBrace,
  getActionCount,
  getActionsKind,
  getDocEnd,
  getDocStart,
  getRootKind,
  inexactBase,
  inexactCountBase,
  inputBase,
  lastCloseBrace,
  recordsBase,
  scan,
  usableActions,
  utf16ToUtf8,
} from './json-scan';
export { strongCheck, strongResultsBase } from './strong-check';
export { setLayoutConstants } from './strong-layout';
export { layoutPenalty, measureAdvancesBase, measureCountsBase, measureInfoBase, measureWidestBase, setOverflowConstants } from './strong-overflow';
export {
  labelInfoBase,
  labelWordsBase,
  matchOutBase,
  setMatchConstants,
  nameWordsBase,
  namesBase,
  specEdgesBase,
  specEntitiesBase,
  strongMatch,
} from './strong-match';
export {
  getSeedPendingCount,
  promptBase,
  promptCapacity,
  seedPendingBase,
  seedResultsBase,
  seedScore,
  seedSuppliedBase,
  seedSuppliedCapacity,
  seedSuppliedEndsBase,
  setPrompt,
  supplySeedLabels,
} from './seed-score';
