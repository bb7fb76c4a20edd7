// The seed document's five hand-written prompts, with the specs a person reads from them. "vector DB" asks for a
// Vector Database and "auth service" an Authentication Service: specs carry the fuller name, which is what the strong
// reward gives full credit for.
import type { Task } from './spec.ts';
import { levelOf } from './difficulty.ts';

const chain = (id: string, prompt: string, entities: string[]): Task => ({
  id: `train-chain-seed-${id}`,
  prompt,
  spec: {
    entities,
    edges: entities.slice(1).map((e, i): [string, string] => [entities[i], e]),
    kind: 'chain',
    difficulty: levelOf('chain', entities.length),
  },
});

export const SEED_TASKS: readonly Task[] = [
  chain('data-pipeline', 'Draw a three step data pipeline: client, API, database.', ['Client', 'API', 'Database']),
  chain('login', 'Draw a login flow with user, auth service, token, and dashboard.', ['User', 'Authentication Service', 'Token', 'Dashboard']),
  chain('rag', 'Draw a simple RAG system with documents, embeddings, vector DB, retriever, and LLM.', ['Documents', 'Embeddings', 'Vector Database', 'Retriever', 'LLM']),
  chain('ci', 'Draw a CI pipeline with commit, tests, build, deploy.', ['Commit', 'Tests', 'Build', 'Deploy']),
  chain('checkout', 'Draw a checkout flow with cart, payment, fraud check, and receipt.', ['Cart', 'Payment', 'Fraud Check', 'Receipt']),
];
