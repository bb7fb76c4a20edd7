// Branches written as conditions, for prompt-to-spec extraction: "if the payment succeeds send a receipt, if it fails
// notify support", "check the password; if it is right go to the dashboard, otherwise show an error", "valid input
// goes to save, invalid input goes to an error page". The thing that decides (the step before the branches, or the
// subject of the first condition) gets one arrow to each branch's outcome; the condition itself is no box.
// (The yes/no branches of a named decision are extract-decision.ts's.)
import { removeChatter } from './chatter.ts';
import { clauseRelations, clauseSubject, splitCondition } from './clauses.ts';
import { cleanEntity } from './extract-text.ts';

export interface Branches {
  /** What decides, or undefined when the sentence names none and the step before it decides. */
  decider: string | undefined;
  /** The outcome of each branch, as a chain of steps. */
  outcomes: string[][];
  /** The noun the branches qualify ("passing tests", "failing tests": tests), when they name one. */
  qualified?: string;
  /** The edges of a step the branches follow ("users hit the login page, then if ..."); its last target decides. */
  before?: [string, string][];
  /** The branches are verdicts ("pass goes to packaging, fail goes to ..."): what the sentence before led to decides. */
  verdicts?: true;
}

/** Where a branch starts: "if ...", "when ...", "otherwise ...", "if not ...", after a comma, semicolon or "and". */
const BRANCH_START = /(?:^|[;,:]\s*|\s+)(?:(?:and|but|or)\s+)?(if\s+not|if\s+so|if|when(?:ever)?|unless|otherwise|else|or\s+else|on\s+(?:success|failure|error|a\s+miss|miss|a\s+hit|hit|timeout))\b\s*,?\s*/gi;
const CONDITIONAL = /^(?:if|when|whenever|unless)$/i;
/** A branch named by what happened: "on success it deploys to staging, on error it opens a ticket". */
const VERDICT_START = /^on\s/i;
/** An outcome that moves on to something: "go to the dashboard", "it goes to returns", "deploy to staging". */
const MOTION =
  /^(?:(?:it|they|them|this|that|he|she|the user)(?:'s|'re|\s+is|\s+are|\s+gets?)?\s+)?(?:then\s+)?(?:go(?:es)?|leads?|moves?|proceeds?|continues?|redirects?|routes?|forwards?|sends?|deploys?|writes?|pass(?:es)?|falls?\s+back|returns?|sent|passed|moved|forwarded|routed|escalated|handed)(?:\s+(?:it|them|the user))?\s+(?:back\s+)?(?:on\s+)?(?:straight\s+)?(?:to|into)\s+(.+)$/i;
/** An outcome where they end up: "they wait in the waiting room until a GP is free", "it stays in the queue". */
const STAYS = /^(?:it|they|he|she|we|you)\s+(?:\w+\s+){1,2}?(?:in|at|on)\s+(.+?)(?:\s+(?:until|while|when|before|after|for)\b.*)?$/i;
/** An outcome that shows something: "show an error", "display the login page". */
const SHOW = /^(?:then\s+)?(?:show|display)s?\s+(.+)$/i;
/** An outcome that is a state: "the order is cancelled", "spam is deleted". */
const BECOMES = /^(?:the\s+)?[\w-]+(?:\s+[\w-]+)?\s+(?:is|are|gets?|get)\s+([a-z]+ed)$/i;
const STEP_SPLIT = /\s*,?\s*(?:and\s+)?then\s+/i;
const PRONOUN = /^(?:it|they|this|that|them|he|she|you|we)$/i;

/** An outcome's steps in order, each the box it names. */
export function outcomeSteps(text: string): string[] {
  return text
    .split(STEP_SPLIT)
    .map((step) => {
      const s = step.trim().replace(/[.!?]+$/, '');
      const move = MOTION.exec(s) ?? SHOW.exec(s) ?? STAYS.exec(s);
      if (move) return cleanEntity(move[1], true);
      const state = BECOMES.exec(s);
      if (state) return state[1];
      const subject = s.split(/\s+/).length >= 3 ? clauseSubject(s) : null;
      return subject && !PRONOUN.test(subject) ? subject : cleanEntity(s, true);
    })
    .filter(Boolean);
}

/** "if ... , ... otherwise ...": each branch's condition subject and outcome. Null without two branches. */
function conditionBranches(sentence: string): Branches | null {
  const starts = [...sentence.matchAll(BRANCH_START)];
  if (starts.length < 2 || !(CONDITIONAL.test(starts[0][1]) || VERDICT_START.test(starts[0][1]))) return null;
  const lead = sentence.slice(0, starts[0].index).trim();
  let subject: string | undefined;
  const outcomes: string[][] = [];
  starts.forEach((m, k) => {
    const from = (m.index ?? 0) + m[0].length;
    const text = sentence.slice(from, k + 1 < starts.length ? starts[k + 1].index : undefined).trim().replace(/[,;:.!?]+$/, '');
    let outcome = text;
    if (CONDITIONAL.test(m[1])) {
      const comma = text.indexOf(',');
      const split = comma !== -1 ? { subject: null, outcome: text.slice(comma + 1) } : splitCondition(text);
      if (!split) return;
      outcome = split.outcome;
      if (comma !== -1) {
        const words = text.slice(0, comma).split(/\s+/);
        subject ??= words.length >= 2 ? (clauseSubject(`${text.slice(0, comma)} it`) ?? undefined) : undefined;
      } else if (split.subject && !PRONOUN.test(split.subject)) subject ??= split.subject;
    }
    const steps = outcomeSteps(outcome);
    if (steps.length) outcomes.push(steps);
  });
  if (outcomes.length < 2) return null;
  // "users hit the login page, then if they're new ...": after a step and "then", the branches hang off where the step
  // led; otherwise off the step's subject, or the step itself.
  const step = lead.replace(/[\s,;:]*(?:\b(?:and|then|and then))?[\s,;:]*$/i, '');
  const led = step !== lead && /\bthen[\s,;:]*$/i.test(lead) ? clauseRelations(step) : null;
  const leadName = led ? '' : step ? (clauseSubject(step) ?? cleanEntity(step, true)) : '';
  const decider = leadName || (subject ? cleanEntity(subject) : '') || undefined;
  return { decider, outcomes, ...(led ? { before: led.edges } : {}) };
}

/** "Q1 X goes to A, Q2 X goes to B": two or more clauses that send differently qualified things on. */
const QUALIFIED =
  /^(?:and\s+)?(?:the\s+)?([\w-]+(?:\s+[\w-]+){0,2}?)\s+(?:go(?:es)?|leads?|triggers?|moves?|(?:is|are)\s+sent|gets?\s+sent)\s+(?:back\s+)?(?:to\s+|into\s+)?(.+)$/i;
const QUALIFIED_SPLIT = /\s*,\s*(?:and\s+)?|\s+and\s+(?=(?:the\s+)?[\w-]+(?:\s+[\w-]+){0,2}?\s+(?:go(?:es)?|leads?|triggers?|moves?|is|are|gets?)\b)/i;

function qualifiedBranches(sentence: string): Branches | null {
  const colon = sentence.indexOf(':');
  const lead = colon === -1 ? '' : sentence.slice(0, colon).trim();
  const body = sentence.slice(colon + 1).trim().replace(/[.!?]+$/, '');
  const clauses = body.split(QUALIFIED_SPLIT).filter((c) => c.trim());
  if (clauses.length < 2) return null;
  const matches = clauses.map((c) => QUALIFIED.exec(c.trim()));
  if (matches.some((m) => m === null)) return null;
  const subjects = matches.map((m) => m![1].toLowerCase());
  if (new Set(subjects).size < subjects.length) return null;
  // The things qualified: "passing tests", "failing tests" share their last word.
  const heads = subjects.map((s) => s.split(/\s+/).pop()!);
  const qualified = heads.every((h) => h === heads[0]) && subjects.every((s) => s.includes(' ')) ? heads[0] : undefined;
  const outcomes = matches.map((m) => outcomeSteps(m![2]));
  if (outcomes.some((o) => o.length === 0)) return null;
  // Where what one clause sends on is what another sends, the clauses are a chain ("green goes to yellow, yellow
  // goes to red"), not branches.
  const sent = new Set(outcomes.flat().map((o) => o.toLowerCase()));
  if (subjects.some((s) => sent.has(s))) return null;
  const decider = lead ? (clauseSubject(lead) ?? cleanEntity(lead, true)) || undefined : undefined;
  const verdicts = subjects.every((x) => VERDICT.test(x));
  return { decider, outcomes, ...(qualified ? { qualified } : {}), ...(verdicts ? { verdicts: true as const } : {}) };
}

/** A branch named by its verdict alone. */
// ("High goes to the on-call engineer, low goes to the backlog", "approved ones are passed to ...": a grade, alone or
// of "ones".)
const VERDICT = /^(?:pass(?:ed|es)?|fail(?:ed|s|ure)?|yes|no|success|ok|approved|rejected|accepted|denied|valid|invalid|good|bad|hit|miss|high|low|medium|urgent|critical|normal|minor|major|borderline)(?:\s+ones?)?$/i;

/** "The build either passes and deploys to staging, or fails and pages the on-call": what decides, and where each
 *  branch leads (read as the sentence the subject and the branch make). */
const EITHER = /^(.+?)\s+either\s+(.+?),?\s+or\s+(.+)$/i;

function eitherBranches(sentence: string): Branches | null {
  const m = EITHER.exec(sentence.replace(/[.!?]+$/, ''));
  if (!m) return null;
  const decider = clauseSubject(`${m[1]} does it`) ?? cleanEntity(m[1], true);
  if (!decider) return null;
  const outcomes = [m[2], m[3]].map((branch) => {
    const read = clauseRelations(`${m[1]} ${branch}`);
    const targets = read?.edges.filter(([a]) => a.toLowerCase() === decider.toLowerCase()).map(([, b]) => b) ?? [];
    return targets.slice(-1);
  });
  if (outcomes.some((o) => o.length === 0)) return null;
  return { decider, outcomes };
}

/** The branches a sentence writes as conditions or as differently qualified things, or null. */
export function readBranches(sentence: string): Branches | null {
  const text = removeChatter(sentence);
  return conditionBranches(text) ?? qualifiedBranches(text) ?? eitherBranches(text);
}
