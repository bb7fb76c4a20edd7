// The shape of the hand-written vocabulary: one file per domain, each with a train and a held-out half.
// Scenarios are written in a compact line syntax (parsed by ../scenarios.ts) so that a domain fits on a screen:
//   every line starts with `topic :: `, and an entity written `Full Name {short}` is typed as `short` in prompts
//   while the spec keeps `Full Name`. A trailing `@ verb, verb` overrides the domain's arrow-label verbs.
//   chains, cycles: `A > B > C`                      (a cycle also runs from the last step back to the first)
//   fans:           `Hub => A, B, C` (fan-out)  or `A, B, C => Hub` (fan-in)
//   trees:          `Root > Child (Grandchild, Grandchild), Child`
//   decisions:      `Before > Before > [Question?] Yes step > Yes step | No step > No step`
//   layered:        `Tier name: A, B | Tier name: C | Tier name: D, E`   (top tier first)
//   mixed:          `A > B, C; B > D; C > D`       (each clause: one source and its targets)

export interface ScenarioLines {
  chains: string[];
  cycles: string[];
  fans: string[];
  trees: string[];
  decisions: string[];
  layered: string[];
  mixed: string[];
}

export interface DomainVocab {
  domain: string;
  /** Arrow labels that read naturally in this domain, used when a prompt asks for labelled arrows. */
  verbs: string[];
  train: ScenarioLines;
  ood: ScenarioLines;
}
