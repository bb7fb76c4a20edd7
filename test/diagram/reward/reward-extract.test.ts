import { describe, expect, it } from 'vitest';
import { cleanEntity, extractSpec } from '../../../src/diagram/reward/extract.ts';
import { normalizeLabel } from '../../../src/diagram/reward/labels.ts';
import { generateTasks } from '../../../src/diagram/tasks/generate.ts';
import { addCounts, recall, scoreExtraction, ZERO_COUNTS, type ExtractionCounts } from '../../../src/diagram/tasks/extraction-metrics.ts';

type Case = [prompt: string, entities: string[], edges: [string, string][]];
const chain = (...xs: string[]): [string, string][] => xs.slice(1).map((x, i) => [xs[i], x]);

// Hand-written requests in the phrasings diagram prompts use, with the spec a person would write for each.
const CASES: Case[] = [
  // The seed document's five.
  ['Draw a three step data pipeline: client, API, database.', ['client', 'API', 'database'], chain('client', 'API', 'database')],
  ['Draw a login flow with user, auth service, token, and dashboard.', ['user', 'auth service', 'token', 'dashboard'], chain('user', 'auth service', 'token', 'dashboard')],
  ['Draw a simple RAG system with documents, embeddings, vector DB, retriever, and LLM.', ['documents', 'embeddings', 'vector DB', 'retriever', 'LLM'], []],
  ['Draw a CI pipeline with commit, tests, build, deploy.', ['commit', 'tests', 'build', 'deploy'], chain('commit', 'tests', 'build', 'deploy')],
  ['Draw a checkout flow with cart, payment, fraud check, and receipt.', ['cart', 'payment', 'fraud check', 'receipt'], chain('cart', 'payment', 'fraud check', 'receipt')],
  // Arrows.
  ['Diagram: User -> Web App -> API -> Postgres.', ['User', 'Web App', 'API', 'Postgres'], chain('User', 'Web App', 'API', 'Postgres')],
  ['Browser → CDN → Origin Server', ['Browser', 'CDN', 'Origin Server'], chain('Browser', 'CDN', 'Origin Server')],
  ['Draw Producer => Kafka => Consumer', ['Producer', 'Kafka', 'Consumer'], chain('Producer', 'Kafka', 'Consumer')],
  ['Sketch: Source -> Compiler -> Binary, and Tests -> Binary.', ['Source', 'Compiler', 'Binary', 'Tests'], [...chain('Source', 'Compiler', 'Binary'), ['Tests', 'Binary']]],
  ['Make a diagram of Idea --> Draft --> Review --> Published.', ['Idea', 'Draft', 'Review', 'Published'], chain('Idea', 'Draft', 'Review', 'Published')],
  ['Show Client -> Load Balancer -> App Server 1, App Server 2.', ['Client', 'Load Balancer', 'App Server 1', 'App Server 2'], [['Client', 'Load Balancer'], ['Load Balancer', 'App Server 1'], ['Load Balancer', 'App Server 2']]],
  ['Order placed -> Payment -> Shipping; Payment -> Invoice', ['Order placed', 'Payment', 'Shipping', 'Invoice'], [['Order placed', 'Payment'], ['Payment', 'Shipping'], ['Payment', 'Invoice']]],
  // from ... to ...
  ['Draw an arrow from the mobile app to the backend.', ['mobile app', 'backend'], [['mobile app', 'backend']]],
  ['Show a request going from the browser to the load balancer, then to the web server, then to the database.', ['browser', 'load balancer', 'web server', 'database'], chain('browser', 'load balancer', 'web server', 'database')],
  ['Data moves from sensors to the gateway to the cloud.', ['sensors', 'gateway', 'cloud'], chain('sensors', 'gateway', 'cloud')],
  ['Trace a packet from the laptop through the router to the modem.', ['laptop', 'router', 'modem'], chain('laptop', 'router', 'modem')],
  ['Diagram the path from raw logs to the parser and from the parser to the dashboard.', ['raw logs', 'parser', 'dashboard'], chain('raw logs', 'parser', 'dashboard')],
  // then / first ... then ...
  ['First fetch data, then clean data, then train model and finally deploy model.', ['fetch data', 'clean data', 'train model', 'deploy model'], chain('fetch data', 'clean data', 'train model', 'deploy model')],
  ['Draw: plan then code then review then merge.', ['plan', 'code', 'review', 'merge'], chain('plan', 'code', 'review', 'merge')],
  ['Start with signup, then onboarding, then first purchase.', ['signup', 'onboarding', 'first purchase'], chain('signup', 'onboarding', 'first purchase')],
  ['A support ticket flow: first triage, then investigation, then resolution.', ['triage', 'investigation', 'resolution'], chain('triage', 'investigation', 'resolution')],
  // Relations.
  ['The gateway connects to the auth service, the order service and the payment service.', ['gateway', 'auth service', 'order service', 'payment service'], [['gateway', 'auth service'], ['gateway', 'order service'], ['gateway', 'payment service']]],
  ['The web server sends requests to the cache.', ['web server', 'cache'], [['web server', 'cache']]],
  ['Draw a system where the scheduler triggers the worker.', ['scheduler', 'worker'], [['scheduler', 'worker']]],
  ['The API writes to the database and the API publishes to the event bus.', ['API', 'database', 'event bus'], [['API', 'database'], ['API', 'event bus']]],
  ['Web, mobile and desktop clients connect to the API.', ['Web', 'mobile', 'desktop clients', 'API'], [['Web', 'API'], ['mobile', 'API'], ['desktop clients', 'API']]],
  ['The frontend calls the backend.', ['frontend', 'backend'], [['frontend', 'backend']]],
  ['The ingest service feeds into the data lake.', ['ingest service', 'data lake'], [['ingest service', 'data lake']]],
  // Lists with a sequence cue.
  ['Draw an ETL pipeline with extract, transform and load.', ['extract', 'transform', 'load'], chain('extract', 'transform', 'load')],
  ['A hiring process: application, phone screen, onsite, offer.', ['application', 'phone screen', 'onsite', 'offer'], chain('application', 'phone screen', 'onsite', 'offer')],
  ['Show the stages of a sales funnel including awareness, interest, decision and action.', ['awareness', 'interest', 'decision', 'action'], chain('awareness', 'interest', 'decision', 'action')],
  ['Draw the software release workflow with branch, pull request, CI, and release.', ['branch', 'pull request', 'CI', 'release'], chain('branch', 'pull request', 'CI', 'release')],
  ['Make a diagram of a request lifecycle: DNS lookup, TCP handshake, TLS handshake, HTTP request.', ['DNS lookup', 'TCP handshake', 'TLS handshake', 'HTTP request'], chain('DNS lookup', 'TCP handshake', 'TLS handshake', 'HTTP request')],
  // Lists without one: entities only.
  ['Draw a diagram with a client, a server and a database.', ['client', 'server', 'database'], []],
  ['Draw the components of a car: engine, wheels, brakes, and steering.', ['engine', 'wheels', 'brakes', 'steering'], []],
  ['Show a microservice architecture with users service, orders service, and notifications service.', ['users service', 'orders service', 'notifications service'], []],
  ['Sketch an org chart containing CEO, CTO and CFO.', ['CEO', 'CTO', 'CFO'], []],
  // Bullets.
  ['Draw these steps:\n1. Plan\n2. Code\n3. Review\n4. Merge', ['Plan', 'Code', 'Review', 'Merge'], chain('Plan', 'Code', 'Review', 'Merge')],
  ['Boxes for:\n- Redis\n- Postgres\n- S3', ['Redis', 'Postgres', 'S3'], []],
  ['Draw the deploy process:\n- build image\n- push image\n- roll out', ['build image', 'push image', 'roll out'], chain('build image', 'push image', 'roll out')],
  ['Connections:\n- Client -> API\n- API -> DB\n- API -> Cache', ['Client', 'API', 'DB', 'Cache'], [['Client', 'API'], ['API', 'DB'], ['API', 'Cache']]],
  // Mixed and harder.
  ['Draw a pipeline: ingest, validate, store. The store step also connects to the audit log.', ['ingest', 'validate', 'store', 'audit log'], [...chain('ingest', 'validate', 'store'), ['store', 'audit log']]],
  ['Create a flowchart with start, input, process, output and end.', ['start', 'input', 'process', 'output', 'end'], chain('start', 'input', 'process', 'output', 'end')],
  ['Please draw a Kubernetes setup with an ingress, a service and three pods (pod A, pod B, pod C).', ['ingress', 'service', 'three pods'], []],
];

// Phrasings written for the second round of rules (label requests, decisions, layers, relative clauses, reversed
// verbs), tuned on like CASES; none is copied from the task suite's templates.
const ROUND_TWO: Case[] = [
  ['Make a flowchart: Start → Validate Input → Save Record → Done', ['Start', 'Validate Input', 'Save Record', 'Done'], chain('Start', 'Validate Input', 'Save Record', 'Done')],
  ['Draft is followed by Edit, which is followed by Publish.', ['Draft', 'Edit', 'Publish'], chain('Draft', 'Edit', 'Publish')],
  ['Onboarding: welcome email, followed by setup call, followed by first project.', ['welcome email', 'setup call', 'first project'], chain('welcome email', 'setup call', 'first project')],
  ['The orchestrator dispatches jobs to Worker 1, Worker 2 and Worker 3.', ['orchestrator', 'Worker 1', 'Worker 2', 'Worker 3'], [['orchestrator', 'Worker 1'], ['orchestrator', 'Worker 2'], ['orchestrator', 'Worker 3']]],
  ['From the router, draw arrows to the printer, the laptop and the phone.', ['router', 'printer', 'laptop', 'phone'], [['router', 'printer'], ['router', 'laptop'], ['router', 'phone']]],
  ['Connect the hub to each of these: Sensor A, Sensor B, Sensor C.', ['hub', 'Sensor A', 'Sensor B', 'Sensor C'], [['hub', 'Sensor A'], ['hub', 'Sensor B'], ['hub', 'Sensor C']]],
  ['Logs, metrics and traces are all inputs to the observability platform.', ['Logs', 'metrics', 'traces', 'observability platform'], [['Logs', 'observability platform'], ['metrics', 'observability platform'], ['traces', 'observability platform']]],
  ['Draw arrows from the web app, the mobile app and the CLI into the API.', ['web app', 'mobile app', 'CLI', 'API'], [['web app', 'API'], ['mobile app', 'API'], ['CLI', 'API']]],
  ['The warehouse receives data from the CRM, the ERP and the website.', ['warehouse', 'CRM', 'ERP', 'website'], [['CRM', 'warehouse'], ['ERP', 'warehouse'], ['website', 'warehouse']]],
  ['The CEO manages the CTO and the CFO, and the CTO manages the Frontend Lead and the Backend Lead.', ['CEO', 'CTO', 'CFO', 'Frontend Lead', 'Backend Lead'], [['CEO', 'CTO'], ['CEO', 'CFO'], ['CTO', 'Frontend Lead'], ['CTO', 'Backend Lead']]],
  ['Car and Truck are children of Vehicle.', ['Vehicle', 'Car', 'Truck'], [['Vehicle', 'Car'], ['Vehicle', 'Truck']]],
  ['Draw the PDCA loop: plan, do, check, act, then back to plan.', ['plan', 'do', 'check', 'act'], chain('plan', 'do', 'check', 'act', 'plan')],
  ['Is the user logged in? If so, show the dashboard; otherwise, show the login page.', ['Is the user logged in', 'dashboard', 'login page'], [['Is the user logged in', 'dashboard'], ['Is the user logged in', 'login page']]],
  ['Start at Receive Order, then ask "In stock?". Yes: Ship Order. No: Backorder.', ['Receive Order', 'In stock?', 'Ship Order', 'Backorder'], [['Receive Order', 'In stock?'], ['In stock?', 'Ship Order'], ['In stock?', 'Backorder']]],
  ['Make a decision tree: "Raining?" yes -> Take Umbrella, no -> Wear Sunglasses.', ['Raining?', 'Take Umbrella', 'Wear Sunglasses'], [['Raining?', 'Take Umbrella'], ['Raining?', 'Wear Sunglasses']]],
  ['Flow: Receive Claim -> Review Claim -> <Approved?>; yes -> Pay Claim; no -> Send Denial Letter.', ['Receive Claim', 'Review Claim', 'Approved?', 'Pay Claim', 'Send Denial Letter'], [...chain('Receive Claim', 'Review Claim', 'Approved?', 'Pay Claim'), ['Approved?', 'Send Denial Letter']]],
  ['Three layers: UI (Web, Mobile), Services (Auth, Orders), Data (Postgres, Redis). Each layer talks to every component in the layer below.', ['Web', 'Mobile', 'Auth', 'Orders', 'Postgres', 'Redis'], [['Web', 'Auth'], ['Web', 'Orders'], ['Mobile', 'Auth'], ['Mobile', 'Orders'], ['Auth', 'Postgres'], ['Auth', 'Redis'], ['Orders', 'Postgres'], ['Orders', 'Redis']]],
  ['Can you draw a 3-layer diagram: top layer has Web and Mobile, middle layer has API, bottom layer has DB and Cache? Every box in one layer connects to every box in the layer under it.', ['Web', 'Mobile', 'API', 'DB', 'Cache'], [['Web', 'API'], ['Mobile', 'API'], ['API', 'DB'], ['API', 'Cache']]],
  ['Graph with edges A to B, A to C and C to D.', ['A', 'B', 'C', 'D'], [['A', 'B'], ['A', 'C'], ['C', 'D']]],
  ['The mobile app and the web app both call the auth service.', ['mobile app', 'web app', 'auth service'], [['mobile app', 'auth service'], ['web app', 'auth service']]],
  ['The diagram should have an Input node linked to a Processor node, which is linked to an Output node.', ['Input', 'Processor', 'Output'], chain('Input', 'Processor', 'Output')],
  ['Draw a pipeline with these stages, in order: lint; test; build; deploy.', ['lint', 'test', 'build', 'deploy'], chain('lint', 'test', 'build', 'deploy')],
  ['Sketch a tree:\n- Animals\n  - Mammals\n    - Dogs\n  - Birds', ['Animals', 'Mammals', 'Dogs', 'Birds'], [['Animals', 'Mammals'], ['Mammals', 'Dogs'], ['Animals', 'Birds']]],
  ['Boxes:\n- Scanner\n- Parser\n- Emitter\nThe arrow from Scanner to Parser should say "tokens". Put "AST" on the Parser -> Emitter arrow.', ['Scanner', 'Parser', 'Emitter'], chain('Scanner', 'Parser', 'Emitter')],
  ['Tiny state machine: Idle goes to Running, Running to Paused, and Paused loops back to Idle.', ['Idle', 'Running', 'Paused'], chain('Idle', 'Running', 'Paused', 'Idle')],
  ['draw a cycle of seasons: spring, summer, autumn, winter, and back to spring. label the arrow from winter to spring "thaw".', ['spring', 'summer', 'autumn', 'winter'], chain('spring', 'summer', 'autumn', 'winter', 'spring')],
];

// Written after the rules were tuned on CASES and never tuned on: the honest figure for unseen phrasings.
const HELD_OUT: Case[] = [
  ['Draw a payment pipeline: checkout, tokenizer, processor, bank.', ['checkout', 'tokenizer', 'processor', 'bank'], chain('checkout', 'tokenizer', 'processor', 'bank')],
  ['Camera -> Encoder -> Streaming Server -> Viewers', ['Camera', 'Encoder', 'Streaming Server', 'Viewers'], chain('Camera', 'Encoder', 'Streaming Server', 'Viewers')],
  ['Show how an email goes from the sender to the SMTP server to the recipient.', ['sender', 'SMTP server', 'recipient'], chain('sender', 'SMTP server', 'recipient')],
  ['The load balancer forwards traffic to web server A and web server B.', ['load balancer', 'web server A', 'web server B'], [['load balancer', 'web server A'], ['load balancer', 'web server B']]],
  ['Draw a machine learning workflow with data collection, labeling, training, evaluation and deployment.', ['data collection', 'labeling', 'training', 'evaluation', 'deployment'], chain('data collection', 'labeling', 'training', 'evaluation', 'deployment')],
  ['Draw a home network with a router, a switch, a NAS and two laptops.', ['router', 'switch', 'NAS', 'two laptops'], []],
  ['First the user uploads a file, then the server scans it, then it is stored.', ['user uploads a file', 'server scans it', 'it is stored'], chain('user uploads a file', 'server scans it', 'it is stored')],
  ['The cron job triggers the backup script.', ['cron job', 'backup script'], [['cron job', 'backup script']]],
  ['Steps:\n1. Receive order\n2. Pick items\n3. Pack box\n4. Ship', ['Receive order', 'Pick items', 'Pack box', 'Ship'], chain('Receive order', 'Pick items', 'Pack box', 'Ship')],
  ['Create a diagram where the client talks to the proxy and the proxy talks to the origin.', ['client', 'proxy', 'origin'], chain('client', 'proxy', 'origin')],
  ['Draw a compiler: lexer then parser then type checker then code generator.', ['lexer', 'parser', 'type checker', 'code generator'], chain('lexer', 'parser', 'type checker', 'code generator')],
  ['Illustrate a pub/sub setup with a publisher, a broker and two subscribers, where the publisher sends to the broker.', ['publisher', 'broker', 'two subscribers'], [['publisher', 'broker']]],
];

const key = (s: string) => normalizeLabel(s).compact;
const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

function judge([prompt, entities, edges]: Case) {
  const spec = extractSpec(prompt);
  const entitiesOk = sameSet(spec.entities.map(key), entities.map(key));
  const edgesOk = sameSet(spec.edges.map(([a, b]) => `${key(a)}>${key(b)}`), edges.map(([a, b]) => `${key(a)}>${key(b)}`));
  return { prompt, spec, entitiesOk, edgesOk };
}

describe('extractSpec', () => {
  const results = CASES.map(judge);
  const rate = (f: (r: (typeof results)[number]) => boolean) => results.filter(f).length / results.length;

  it('recovers the spec of most hand-written requests exactly', () => {
    const entities = rate((r) => r.entitiesOk);
    const edges = rate((r) => r.edgesOk);
    const both = rate((r) => r.entitiesOk && r.edgesOk);
    const misses = results.filter((r) => !(r.entitiesOk && r.edgesOk)).map((r) => `${r.prompt}\n   got ${JSON.stringify(r.spec)}`);
    console.log(
      `extractSpec on ${CASES.length} prompts: entities exact ${(entities * 100).toFixed(0)}%, edges exact ${(edges * 100).toFixed(0)}%, ` +
        `both ${(both * 100).toFixed(0)}%\nmisses:\n${misses.join('\n')}`,
    );
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(both).toBeGreaterThanOrEqual(0.8);
  });

  it('reads label requests, decisions, layers and reversed relations', () => {
    const round = ROUND_TWO.map(judge);
    const misses = round.filter((r) => !(r.entitiesOk && r.edgesOk)).map((r) => `${r.prompt}\n   got ${JSON.stringify(r.spec)}`);
    expect(misses, misses.join('\n')).toEqual([]);
  });

  it('keeps a quoted decision whole and never makes an arrow label an entity', () => {
    const prompt = 'Flowchart: Load -> "Is it valid, really?" ; yes -> Save; no -> Drop. Label the arrow from Load to Is it valid, really? "checks", and Save -> Drop "then".';
    const r = judge([prompt, ['Load', 'Is it valid, really?', 'Save', 'Drop'], [['Load', 'Is it valid, really?'], ['Is it valid, really?', 'Save'], ['Is it valid, really?', 'Drop'], ['Save', 'Drop']]]);
    expect(r.spec.entities).toContain('Is it valid, really?');
    expect(r.entitiesOk && r.edgesOk, JSON.stringify(r.spec)).toBe(true);
  });

  it('reports the figure on held-out requests the rules were not tuned on', () => {
    const held = HELD_OUT.map(judge);
    const both = held.filter((r) => r.entitiesOk && r.edgesOk).length / held.length;
    const misses = held.filter((r) => !(r.entitiesOk && r.edgesOk)).map((r) => `${r.prompt}\n   got ${JSON.stringify(r.spec)}`);
    console.log(`extractSpec on ${held.length} held-out prompts: both exact ${(both * 100).toFixed(0)}%\nmisses:\n${misses.join('\n')}`);
    expect(both).toBeGreaterThanOrEqual(0.5);
  });

  // The suite's generated prompts, scored as bench/extraction.ts does. Train prompts are what the rules were tuned on;
  // held-out prompts (other templates, other names) were never read while tuning, so their floor only guards against
  // a regression below the figure in docs/tasks.md.
  const suite = (split: 'train' | 'ood') => {
    let counts: ExtractionCounts = ZERO_COUNTS;
    let exact = 0;
    const tasks = generateTasks({ split, n: 300, seed: 0 });
    for (const t of tasks) {
      const c = scoreExtraction(t.spec, extractSpec(t.prompt));
      counts = addCounts(counts, c);
      if (c.entities.fp + c.entities.fn + c.edges.fp + c.edges.fn === 0) exact++;
    }
    return { counts, exact: exact / tasks.length };
  };

  it('recovers most specs of the generated train prompts', () => {
    const { counts, exact } = suite('train');
    expect(exact).toBeGreaterThanOrEqual(0.85);
    expect(recall(counts.edges)).toBeGreaterThanOrEqual(0.95);
  });

  it('stays above its measured floor on held-out generated prompts', () => {
    const { counts, exact } = suite('ood');
    console.log(`held-out generated prompts: edge recall ${(100 * recall(counts.edges)).toFixed(1)}%, exact ${(100 * exact).toFixed(1)}%`);
    expect(recall(counts.edges)).toBeGreaterThanOrEqual(0.4);
    expect(exact).toBeGreaterThanOrEqual(0.15);
  });

  it('reads the seed prompts exactly', () => {
    for (const r of results.slice(0, 5)) expect(r.entitiesOk && r.edgesOk, r.prompt).toBe(true);
  });

  it('reads a counted plural as that many boxes, each joined as the group was', () => {
    expect(extractSpec('a queue feeds 3 workers')).toEqual({
      entities: ['queue', 'worker 1', 'worker 2', 'worker 3'],
      edges: [['queue', 'worker 1'], ['queue', 'worker 2'], ['queue', 'worker 3']],
    });
    // a later mention of the group ("both services") is every member too
    expect(extractSpec('the gateway fans out to two services, and both services write to a single database')).toEqual({
      entities: ['gateway', 'service 1', 'service 2', 'database'],
      edges: [['gateway', 'service 1'], ['gateway', 'service 2'], ['service 1', 'database'], ['service 2', 'database']],
    });
    const producers = extractSpec('two producers write into one topic');
    expect(producers).toEqual({ entities: ['producer 1', 'producer 2', 'topic'], edges: [['producer 1', 'topic'], ['producer 2', 'topic']] });
    // a number before a singular is part of a name, not a count
    expect(extractSpec('Draw Two Phase Commit -> Coordinator').entities).toEqual(['Two Phase Commit', 'Coordinator']);
  });

  it('reads the subject of a step written as a sentence, or the place after a pronoun, and keeps names whole', () => {
    const steps = extractSpec('first the user uploads a file, then the scanner checks it, and then it lands in storage');
    expect(steps.entities[0]).toBe('user');
    expect(steps.entities).toContain('storage');
    // a made-up name whose word the tagger takes for a verb is no clause: nothing follows it
    expect(extractSpec('Delsand Semzairk Get -> Hirpos Customer').entities).toEqual(['Delsand Semzairk Get', 'Hirpos Customer']);
  });

  it('reads a request written as prose by its grammar: subjects, objects, "which", passives and "from"', () => {
    const edges = (p: string) => extractSpec(p).edges;
    expect(edges('the crawler sends pages to the parsers and the parsers store links in the index')).toEqual([['crawler', 'parsers'], ['parsers', 'index']]);
    expect(edges('customers place orders, orders go to the warehouse')).toEqual([['customers', 'orders'], ['orders', 'warehouse']]);
    expect(edges('The frontend is served by nginx, which proxies api calls to the node server.')).toEqual([['nginx', 'frontend'], ['nginx', 'node server']]);
    expect(edges('A translator service takes text from the chat app and returns it to the chat app in another language.')).toEqual([
      ['chat app', 'translator service'],
      ['translator service', 'chat app'],
    ]);
    expect(edges('In our setup, the thermostat reads the temperature sensor and controls the furnace.')).toEqual([
      ['thermostat', 'temperature sensor'],
      ['thermostat', 'furnace'],
    ]);
    expect(edges('two web servers sit behind one load balancer')).toEqual([['load balancer', 'web server 1'], ['load balancer', 'web server 2']]);
    // a verb-like word inside a listed or capitalised name stays part of the name
    expect(extractSpec('would you make a diagram showing crm export, ad spend report, and hr system converging on data warehouse?').entities).toEqual([
      'crm export',
      'ad spend report',
      'hr system',
      'data warehouse',
    ]);
    expect(edges('Fall Term connects to Winter Break. Winter Break connects to Spring Term.')).toEqual([['Fall Term', 'Winter Break'], ['Winter Break', 'Spring Term']]);
  });

  it('reads branches written as conditions: what decides, an arrow to each outcome, and no box for a condition', () => {
    expect(extractSpec('check the password; if it is right go to the dashboard, otherwise show an error')).toEqual({
      entities: ['check the password', 'dashboard', 'error'],
      edges: [['check the password', 'dashboard'], ['check the password', 'error']],
    });
    expect(extractSpec('if the order is paid the warehouse ships it, else the order is cancelled').edges).toEqual([['order', 'warehouse'], ['order', 'cancelled']]);
    // branches that qualify a thing the sentence before named hang off that thing
    expect(extractSpec('the build runs tests; passing tests trigger deploy, failing tests trigger an alert').edges).toEqual([
      ['build', 'tests'],
      ['tests', 'deploy'],
      ['tests', 'alert'],
    ]);
    expect(extractSpec('spam filter: spam goes to the junk folder, everything else goes to the inbox').edges).toEqual([
      ['spam filter', 'junk folder'],
      ['spam filter', 'inbox'],
    ]);
  });

  it('reads branches written in sentences of their own, as "either ... or", and as verdicts', () => {
    expect(extractSpec("Saturday plan: check the weather. If it's raining, take the bus; if not, ride the bike.").edges).toEqual([
      ['check the weather', 'take the bus'],
      ['check the weather', 'ride the bike'],
    ]);
    expect(extractSpec('The build either passes and deploys to staging, or fails and pages the on-call.')).toEqual({
      entities: ['build', 'staging', 'on-call'],
      edges: [['build', 'staging'], ['build', 'on-call']],
    });
    expect(extractSpec('Parts come off the lathe into Inspection. Pass goes to Packaging, fail goes to the Scrap Bin.').edges).toContainEqual(['Inspection', 'Scrap Bin']);
    expect(extractSpec("The refund service checks the amount - if it's under $50 it goes to auto-approve, otherwise it's sent to a support agent.").edges).toEqual([
      ['refund service', 'auto-approve'],
      ['refund service', 'support agent'],
    ]);
    // what the branches are about is no box
    expect(extractSpec("The auth service checks the password. If it's correct, redirect to the dashboard; otherwise show the error page.")).toEqual({
      entities: ['auth service', 'dashboard', 'error page'],
      edges: [['auth service', 'dashboard'], ['auth service', 'error page']],
    });
    expect(extractSpec('Every package gets scanned at the Hub. If the address is local, the Hub routes it to the Local Van. If it is out of state, it goes to Air Freight instead.').edges).toEqual([
      ['Hub', 'Local Van'],
      ['Hub', 'Air Freight'],
    ]);
    expect(extractSpec('Patients check in at triage. If the case is urgent, triage sends them straight to the ER; otherwise they wait in the waiting room until a GP is free.').edges).toEqual([
      ['Patients', 'triage'],
      ['triage', 'ER'],
      ['triage', 'waiting room'],
    ]);
    // clauses that send on what another sends are a chain, not branches
    expect(extractSpec('green goes to yellow, yellow goes to red, red goes back to green.').edges).toEqual([
      ['green', 'yellow'],
      ['yellow', 'red'],
      ['red', 'green'],
    ]);
  });

  it('reads what travels in prose as the boxes it passes through, and leaves out what only says how a thing is', () => {
    expect(extractSpec('Invoices are generated by the billing service and emailed to customers by the notification service.')).toEqual({
      entities: ['billing service', 'notification service', 'customers'],
      edges: [['billing service', 'notification service'], ['notification service', 'customers']],
    });
    expect(extractSpec("It starts in the House, moves to the Senate, and ends at the President's desk.").edges).toEqual([
      ['House', 'Senate'],
      ['Senate', "President's desk"],
    ]);
    expect(extractSpec('Okta also notifies the IT team, which is based in Denver.').edges).toEqual([['Okta', 'IT team']]);
    expect(extractSpec('the doctor writes it and sends it to the pharmacy, the pharmacy fills it, and the patient picks it up from there').edges).toEqual([
      ['doctor', 'pharmacy'],
      ['pharmacy', 'patient'],
    ]);
  });

  it('reads coordinated and quantified subjects, and a reading verb whose object is a pronoun', () => {
    expect(extractSpec('The user service and the order service both publish events to a message bus, and the email service consumes them.').edges).toEqual([
      ['user service', 'message bus'],
      ['order service', 'message bus'],
      ['message bus', 'email service'],
    ]);
    expect(extractSpec('gateway calls orders svc and inventory svc and both of those write to postgres').edges).toEqual([
      ['gateway', 'orders svc'],
      ['gateway', 'inventory svc'],
      ['orders svc', 'postgres'],
      ['inventory svc', 'postgres'],
    ]);
    expect(extractSpec('Draw a load balancer sending traffic to 3 web servers, and each of the 3 talks to one shared Redis cache.').edges).toContainEqual(['web server 3', 'shared Redis cache']);
    expect(extractSpec('Five sensors feed one gateway.').entities).toEqual(['sensor 1', 'sensor 2', 'sensor 3', 'sensor 4', 'sensor 5', 'gateway']);
    expect(extractSpec('a pair of load balancers sits in front of the web servers').entities).toEqual(['load balancer 1', 'load balancer 2', 'web servers']);
    // "each" takes one at a time: what it takes is no box
    expect(extractSpec('a triage nurse sees each patient; urgent cases go to the emergency room and the rest go to the waiting room').entities).toEqual([
      'triage nurse',
      'emergency room',
      'waiting room',
    ]);
  });

  it('reads commands as the tagger reads them after the subject they leave out, and drops when a step happens', () => {
    expect(extractSpec('Clone the repo, then install dependencies. Next run the migrations. After that, start the dev server and finally open localhost in a browser.').edges).toEqual([
      ['Clone the repo', 'install dependencies'],
      ['install dependencies', 'run the migrations'],
      ['run the migrations', 'start the dev server'],
      ['start the dev server', 'open localhost in a browser'],
    ]);
    expect(extractSpec("Steps for patching: drain the node, then apply updates, then reboot, and once it's back up, uncordon it.").entities).toEqual([
      'drain the node',
      'apply updates',
      'reboot',
      'uncordon it',
    ]);
    expect(extractSpec('lol ok my sourdough routine: feed the starter, wait til its bubbly, mix w flour, bake in the morning').edges).toHaveLength(3);
  });

  it('reads nested bullets that say what the bullet above does, "Name: what it does", groups and ways back in arrows', () => {
    expect(extractSpec('- Teacher\n  - enters scores into Gradebook\n- Gradebook\n  - syncs to Student Portal').edges).toEqual([
      ['Teacher', 'Gradebook'],
      ['Gradebook', 'Student Portal'],
    ]);
    expect(extractSpec('• Scheduler: triggers Extractor and Validator\n• Extractor: writes to Staging Bucket').edges).toEqual([
      ['Scheduler', 'Extractor'],
      ['Scheduler', 'Validator'],
      ['Extractor', 'Staging Bucket'],
    ]);
    expect(extractSpec('lb -> (app1, app2, app3) -> pg').edges).toHaveLength(6);
    expect(extractSpec('Plan -> Do -> Check -> Act, then back to Plan.').edges).toContainEqual(['Act', 'Plan']);
    expect(extractSpec('hey quick one - supplier ships to warehouse, warehouse ships to stores, thx').entities).toEqual(['supplier', 'warehouse', 'stores']);
  });

  it('reads a loop of short steps as their chain and an arrow back', () => {
    expect(extractSpec('write code, run tests, fix bugs, and go back to run tests').edges).toEqual([
      ['write code', 'run tests'],
      ['run tests', 'fix bugs'],
      ['fix bugs', 'run tests'],
    ]);
    expect(extractSpec('measure, adjust, measure again').edges).toEqual([['measure', 'adjust'], ['adjust', 'measure']]);
    expect(extractSpec('draft, review, revise, and loop back to review until approved').entities).toEqual(['draft', 'review', 'revise']);
  });

  it("reads the issue's terse requests: clauses in a row as steps, a pronoun object as the thing before, terse verbs", () => {
    expect(extractSpec('visitor fills form, we send verification email, they click link, account activated').edges).toEqual([
      ['visitor fills form', 'send verification email'],
      ['send verification email', 'click link'],
      ['click link', 'account activated'],
    ]);
    expect(extractSpec('two producers write into one topic and three consumers read from it').edges).toEqual([
      ['producer 1', 'topic'],
      ['producer 2', 'topic'],
      ['topic', 'consumer 1'],
      ['topic', 'consumer 2'],
      ['topic', 'consumer 3'],
    ]);
    expect(extractSpec('app asks cache; on miss, app reads database and writes result to cache')).toEqual({
      entities: ['app', 'cache', 'database'],
      edges: [['app', 'cache'], ['app', 'database']],
    });
  });

  it('reads commands in a row that carry on from each other as one chain of steps', () => {
    expect(extractSpec('Preheat the oven. Then grease the pan. Next, pour in the batter. Finally bake for 30 minutes.').edges).toEqual([
      ['Preheat the oven', 'grease the pan'],
      ['grease the pan', 'pour in the batter'],
      ['pour in the batter', 'bake for 30 minutes'],
    ]);
    // sentences with subjects stay relations between their things
    expect(extractSpec('First the client sends a request to the gateway. After that, the gateway calls the auth service.').edges).toEqual([
      ['client', 'gateway'],
      ['gateway', 'auth service'],
    ]);
  });

  it('reads a narrated sequence as a chain of who acts; what they act on is a box only where it acts later or is a place', () => {
    expect(extractSpec('the user uploads a photo; then the resizer makes a thumbnail; after that the cdn serves it').edges).toEqual([
      ['user', 'resizer'],
      ['resizer', 'cdn'],
    ]);
    expect(extractSpec('webhook hits the api gateway. next the gateway queues the event. then a worker processes it.').edges).toEqual([
      ['webhook', 'api gateway'],
      ['api gateway', 'worker'],
    ]);
    expect(extractSpec('the patient checks in at reception; after that a nurse takes vitals; finally the doctor sees the patient').edges).toEqual([
      ['patient', 'reception'],
      ['reception', 'nurse'],
      ['nurse', 'doctor'],
    ]);
  });

  it('reads terse notations: "A to B" items, a fan-out before a colon, "in"/"out" items, "+" joining sources', () => {
    expect(extractSpec('states: idle, running, done. idle to running, running to done, done to idle').edges).toEqual([
      ['idle', 'running'],
      ['running', 'done'],
      ['done', 'idle'],
    ]);
    expect(extractSpec('api gw fans out: users svc, orders svc, billing svc').edges).toEqual([
      ['api gw', 'users svc'],
      ['api gw', 'orders svc'],
      ['api gw', 'billing svc'],
    ]);
    expect(extractSpec('kafka: 2 producers in, 2 consumers out').edges).toEqual([
      ['producer 1', 'kafka'],
      ['producer 2', 'kafka'],
      ['kafka', 'consumer 1'],
      ['kafka', 'consumer 2'],
    ]);
    expect(extractSpec('web + mobile -> bff -> core api').edges).toEqual([['web', 'bff'], ['mobile', 'bff'], ['bff', 'core api']]);
    expect(extractSpec('sensor→edge box→cloud').entities).toEqual(['sensor', 'edge box', 'cloud']);
    // arrows both ways and backwards, ">>", and names joined by dashes
    expect(extractSpec('client <-> server').edges).toEqual([['client', 'server'], ['server', 'client']]);
    expect(extractSpec('cache <- api -> db').edges).toEqual([['api', 'cache'], ['api', 'db']]);
    expect(extractSpec('app >> queue >> worker').edges).toEqual([['app', 'queue'], ['queue', 'worker']]);
    expect(extractSpec('web - api - db').edges).toEqual([['web', 'api'], ['api', 'db']]);
  });

  it('reads who a "when" clause names as setting the main clause going, and passives whose agent takes the subject in', () => {
    // the condition's actor, the thing a passive condition submits, and where a traveller arrives
    expect(extractSpec('When Stripe sends a webhook, the webhook handler verifies the signature.').edges).toContainEqual(['Stripe', 'webhook handler']);
    expect(extractSpec('When the login form is submitted, the auth service checks the password.').edges).toContainEqual(['login form', 'auth service']);
    expect(extractSpec('When a package arrives at the sorting hub, the scanner reads its label.').edges).toContainEqual(['sorting hub', 'scanner']);
    // a passive main clause: to its agent, not to what travels
    expect(extractSpec('When a resident reports a pothole, the report is received by the 311 call center.').edges).toContainEqual(['resident', '311 call center']);
    // anyone, or an actor that acts on nothing, sets nothing going
    expect(extractSpec('When a user uploads a file, the worker stores it in S3.').edges).toEqual([['user', 'worker'], ['worker', 'S3']]);
    expect(extractSpec('When someone uploads a file, the worker stores it in S3.').edges).toEqual([['worker', 'S3']]);
    expect(extractSpec('When a user searches, the search box queries the index.').entities).not.toContain('user');
    // the branches after a check go from the one who checks
    const login = extractSpec("When the login form is submitted, the auth service checks the password. If it's correct, redirect to the dashboard; otherwise show the error page.");
    expect(login.edges).toEqual(expect.arrayContaining([['auth service', 'dashboard'], ['auth service', 'error page']]));
    expect(login.edges).not.toContainEqual(['login form', 'dashboard']);
    // eaten, hunted, taken by: the one consumed comes first; "those" is what the clause before named; "in turn" says when
    expect(extractSpec('grass is eaten by grasshoppers, which are in turn eaten by frogs. The frogs are hunted by snakes, and those are taken by hawks.').edges).toEqual([
      ['grass', 'grasshoppers'],
      ['grasshoppers', 'frogs'],
      ['frogs', 'snakes'],
      ['snakes', 'hawks'],
    ]);
    expect(extractSpec('the frontend is served by nginx').edges).toEqual([['nginx', 'frontend']]);
    // a participle the tagger took for a noun, a "then" after "are", and an object of "into" that is no next subject
    expect(extractSpec('wood is sawn into planks and ore is smelted into ingots.').edges).toEqual([['wood', 'planks'], ['ore', 'ingots']]);
    expect(extractSpec('Planks and ingots are then combined into tools.').edges).toEqual([['Planks', 'tools'], ['ingots', 'tools']]);
    // "From there": from the last thing the sentence before named, and what travels is no box
    const line = extractSpec('Coils are moved to the slitting line. From there, strips are fed into the stamping press.');
    expect(line.edges).toContainEqual(['slitting line', 'stamping press']);
    expect(line.entities.join(' ')).not.toMatch(/strips|there/);
  });

  it('reads a terse clause that opens a text of clauses as a clause, not a list item', () => {
    const ci = extractSpec('github triggers jenkins, jenkins builds a docker image and pushes it to ecr, ecr triggers argo');
    expect(ci.edges).toEqual(expect.arrayContaining([['github', 'jenkins'], ['jenkins', 'ecr'], ['ecr', 'argo']]));
  });

  it('reads bullets of things to do in their order, and numbered steps that carry a thing along as a chain of who acts', () => {
    expect(extractSpec('Diagram for our CI:\n- push to main\n- build\n- run unit tests\n- deploy to staging').edges).toEqual([
      ['push to main', 'build'],
      ['build', 'run unit tests'],
      ['run unit tests', 'deploy to staging'],
    ]);
    const wire = extractSpec('bank wire transfer steps:\n1. Teller enters the wire\n2. Compliance screening checks it\n3. SWIFT gateway sends it out\n4. Correspondent bank receives it');
    expect(wire).toEqual({
      entities: ['Teller', 'Compliance screening', 'SWIFT gateway', 'Correspondent bank'],
      edges: [
        ['Teller', 'Compliance screening'],
        ['Compliance screening', 'SWIFT gateway'],
        ['SWIFT gateway', 'Correspondent bank'],
      ],
    });
    // numbered steps that name each other are edges, not a narration
    expect(extractSpec('1. Kafka Topic feeds Ledger Writer\n2. Kafka Topic feeds Metrics Exporter\n3. Kafka Topic feeds Audit Trail').edges).toEqual([
      ['Kafka Topic', 'Ledger Writer'],
      ['Kafka Topic', 'Metrics Exporter'],
      ['Kafka Topic', 'Audit Trail'],
    ]);
  });

  it('reads a group named with its members in brackets or between dashes as the members, later mentions too', () => {
    expect(extractSpec('The four clinics (North Clinic, South Clinic, Eastside Clinic, Harbor Clinic) each send lab orders to the central lab, and the central lab returns results to every one of the clinics.').edges).toEqual([
      ['North Clinic', 'central lab'],
      ['South Clinic', 'central lab'],
      ['Eastside Clinic', 'central lab'],
      ['Harbor Clinic', 'central lab'],
      ['central lab', 'North Clinic'],
      ['central lab', 'South Clinic'],
      ['central lab', 'Eastside Clinic'],
      ['central lab', 'Harbor Clinic'],
    ]);
    expect(extractSpec('the three stage managers — Main Stage, Forest Stage and the Tent — all radio into production control, which relays to the security desk').edges).toEqual([
      ['Main Stage', 'production control'],
      ['Forest Stage', 'production control'],
      ['Tent', 'production control'],
      ['production control', 'security desk'],
    ]);
    // what gets from one place to another is no box
    expect(extractSpec('How does a complaint get from the support inbox to the backlog?').edges).toEqual([['support inbox', 'backlog']]);
  });

  it('reads clauses apart where the rules skip a name, past a topic before a dash, a scene, and "from X it goes to Y"', () => {
    const recycling = {
      entities: ['trucks', 'sorting line', 'glass bin', 'plastic bin', 'paper bin'],
      edges: [
        ['trucks', 'sorting line'],
        ['sorting line', 'glass bin'],
        ['sorting line', 'plastic bin'],
        ['sorting line', 'paper bin'],
      ],
    };
    expect(extractSpec('trucks bring stuff to the sorting line, sorting line splits it into glass bin, plastic bin and paper bin.')).toEqual(recycling);
    expect(extractSpec('ya the recycling thing — trucks bring stuff to the sorting line, sorting line splits it into glass bin, plastic bin and paper bin.')).toEqual(recycling);
    expect(extractSpec('ok so at the farm, the harvester dumps grain into the grain cart, cart drives it over to the silo and then from the silo it goes to the feed mill.').edges).toEqual([
      ['harvester', 'grain cart'],
      ['grain cart', 'silo'],
      ['silo', 'feed mill'],
    ]);
  });

  it('reads a participle whose object goes on to a place as a verb, not a word of a name', () => {
    expect(extractSpec('3 workers pulling jobs from one Redis queue')).toEqual({
      entities: ['Redis queue', 'worker 1', 'worker 2', 'worker 3'],
      edges: [
        ['Redis queue', 'worker 1'],
        ['Redis queue', 'worker 2'],
        ['Redis queue', 'worker 3'],
      ],
    });
  });

  it('reads "both" and a plural as two boxes, the two already named, or a group counted before and named by its last word', () => {
    expect(extractSpec('Both databases replicate to the backup server nightly.').edges).toEqual([
      ['database 1', 'backup server'],
      ['database 2', 'backup server'],
    ]);
    expect(extractSpec('The north vault and the south vault get cash from the branches. Both vaults ship to the Fed.').edges).toEqual(
      expect.arrayContaining([
        ['north vault', 'Fed'],
        ['south vault', 'Fed'],
      ]),
    );
    expect(extractSpec('The primary feeds two read replicas. Both replicas serve the dashboard.').edges).toEqual([
      ['primary', 'read replica 1'],
      ['primary', 'read replica 2'],
      ['read replica 1', 'dashboard'],
      ['read replica 2', 'dashboard'],
    ]);
  });

  it('reads acronyms the tagger takes for interjections or pronouns as names, and "a single" as no part of one', () => {
    expect(extractSpec('Our two ambulances bring patients to the ER, and the ER sends them on to the wards or the ICU.').edges).toEqual([
      ['ambulance 1', 'ER'],
      ['ambulance 2', 'ER'],
      ['ER', 'wards'],
      ['ER', 'ICU'],
    ]);
    expect(extractSpec('HR sends the signed offer to IT. Then IT notifies the hiring manager.').edges).toEqual([
      ['HR', 'IT'],
      ['IT', 'hiring manager'],
    ]);
    expect(extractSpec('four checkout lanes all feeding into a single exit door').entities).toContain('exit door');
    expect(extractSpec('The single page app redirects users to Keycloak.').entities).toContain('single page app');
  });

  it('reads the shorthands of casual typing in lower case only', () => {
    expect(extractSpec('basically players join the lobby, lobby matches em into a game server, game server reports scores to the leaderboard. thx').edges).toEqual([
      ['players', 'lobby'],
      ['lobby', 'game server'],
      ['game server', 'leaderboard'],
    ]);
    expect(extractSpec('the kafka topic feeds the fraud consumer n the analytics consumer').edges).toEqual([
      ['kafka topic', 'fraud consumer'],
      ['kafka topic', 'analytics consumer'],
    ]);
    expect(extractSpec('Depot -> Truck N3').entities).toEqual(['Depot', 'Truck N3']);
  });

  it('reads how often a loop goes round as no box, and what a sensor measures as where the reading comes from', () => {
    expect(extractSpec('The thermostat turns the furnace on, the furnace heats the room, the room sensor measures it, and the room sensor reports back to the thermostat, round and round all winter.')).toEqual({
      entities: ['thermostat', 'furnace', 'room', 'room sensor'],
      edges: [
        ['thermostat', 'furnace'],
        ['furnace', 'room'],
        ['room', 'room sensor'],
        ['room sensor', 'thermostat'],
      ],
    });
  });

  it('reads "from there" inside a clause as the last place named, over a rule that took it for a name', () => {
    expect(extractSpec('The sender drops it at the post office, the post office routes it to the sorting center, and a mail carrier takes it from there to the recipient.').edges).toEqual([
      ['sender', 'post office'],
      ['post office', 'sorting center'],
      ['sorting center', 'mail carrier'],
      ['mail carrier', 'recipient'],
    ]);
  });

  it('reads a condition of time before a command as what comes and the step it sets going, and grades as verdicts', () => {
    expect(extractSpec('When a ticket comes in, check priority. High goes to the on-call engineer, low goes to the backlog.')).toEqual({
      entities: ['ticket', 'check priority', 'on-call engineer', 'backlog'],
      edges: [
        ['ticket', 'check priority'],
        ['check priority', 'on-call engineer'],
        ['check priority', 'backlog'],
      ],
    });
  });

  it('reads irregular participles as passives, and where what travels comes from when its subject names it', () => {
    expect(extractSpec('Traffic from the office LAN is sent to the firewall, which filters it before passing it on to the edge router.').edges).toEqual([
      ['office LAN', 'firewall'],
      ['firewall', 'edge router'],
    ]);
    expect(extractSpec('From the depot, parcels are sent to the hub, then split across the vans.').edges).toEqual([
      ['depot', 'hub'],
      ['hub', 'vans'],
    ]);
  });

  it('leaves out a relative clause that only describes a subject before its verb, keeping one that names who acts', () => {
    expect(extractSpec('Each application server, which runs a small agent, pushes metrics to Prometheus, and Grafana reads from Prometheus.')).toEqual({
      entities: ['application server', 'Prometheus', 'Grafana'],
      edges: [
        ['application server', 'Prometheus'],
        ['Prometheus', 'Grafana'],
      ],
    });
  });

  it('reads a route of passives, "then" between them and contractions too, as the places it passes', () => {
    const route = { entities: ['creek', 'field lab', 'university lab'], edges: [['creek', 'field lab'], ['field lab', 'university lab']] };
    expect(extractSpec('Water samples are collected at the creek, then filtered in the field lab, next they are shipped to the university lab.')).toEqual(route);
    expect(extractSpec("Water samples are collected at the creek, then filtered in the field lab, next they're shipped to the university lab.")).toEqual(route);
  });

  it('reads what a subject makes as what travels on, a box only where it acts later', () => {
    expect(extractSpec('jenkins builds a docker image and pushes it to ecr')).toEqual({ entities: ['jenkins', 'ecr'], edges: [['jenkins', 'ecr']] });
    expect(extractSpec('The chef cooks the meal and passes it to the waiter.').entities).not.toContain('meal');
    expect(extractSpec('git push triggers ci, then ci builds an image and then the image goes to the registry').edges).toEqual([
      ['git push', 'ci'],
      ['ci', 'image'],
      ['image', 'registry'],
    ]);
  });

  it('follows a thing seen at a place on its way, the places its boxes in order, across sentences too', () => {
    expect(extractSpec('The timber is felled in the forest, then hauled to the sawmill.')).toEqual({ entities: ['forest', 'sawmill'], edges: [['forest', 'sawmill']] });
    expect(extractSpec('Coins arrive at the counting room and are moved to the vault.')).toEqual({ entities: ['counting room', 'vault'], edges: [['counting room', 'vault']] });
    expect(extractSpec("Mail comes down the slot to the hall, then it's sorted at the front desk, after that it goes through the scanner, and finally the courier takes it to the archive.").edges).toEqual([
      ['slot', 'front desk'],
      ['front desk', 'scanner'],
      ['scanner', 'courier'],
      ['courier', 'archive'],
    ]);
    expect(extractSpec('Grain is harvested in the field, then driven to the silo. After that the mill takes it to the bakery.').edges).toEqual([
      ['field', 'silo'],
      ['silo', 'mill'],
      ['mill', 'bakery'],
    ]);
    // from where it was taken, and through who works on it, into the next sentence
    expect(extractSpec('Milk is drawn from the tank and passed through the strainer. It is then heated in the pasteurizer, checked by the lab, and stored in the cold room.').edges).toEqual([
      ['tank', 'strainer'],
      ['strainer', 'pasteurizer'],
      ['pasteurizer', 'lab'],
      ['lab', 'cold room'],
    ]);
    // what comes off a place comes from it
    expect(extractSpec('Parts come off the lathe into Inspection.').edges).toEqual([['lathe', 'Inspection']]);
    // what goes somewhere and then acts on something is no thing on its way
    expect(extractSpec('The request goes to the gateway and also sends a token to the auth service.').entities).toContain('request');
  });

  it('reads a clause that leaves out the verb of the one before, and a list toward one place as one list', () => {
    expect(extractSpec('the router sends small files to the fast queue and large files to the batch queue')).toEqual({
      entities: ['router', 'fast queue', 'batch queue'],
      edges: [
        ['router', 'fast queue'],
        ['router', 'batch queue'],
      ],
    });
    expect(extractSpec('sensors send readings to the gateway and the gateway to the cloud').edges).toEqual([
      ['sensors', 'gateway'],
      ['gateway', 'cloud'],
    ]);
    // an infinitive after a list is no place the list goes to
    expect(extractSpec('the mixer feeds batter to oven one and oven two to bake').edges).toEqual([
      ['mixer', 'oven one'],
      ['mixer', 'oven two'],
    ]);
  });

  it("reads who acts where a place was just named as next after it, and what is worked on and sent on as no box", () => {
    expect(extractSpec('the logs are parsed by a Flink job and written to the lake, where Trino can query them.')).toEqual({
      entities: ['Flink job', 'lake', 'Trino'],
      edges: [
        ['Flink job', 'lake'],
        ['lake', 'Trino'],
      ],
    });
    expect(extractSpec('The players run out to the pitch, where a warm-up is led by the coach.').edges).toEqual([
      ['players', 'pitch'],
      ['pitch', 'coach'],
    ]);
  });

  it('cleans entity phrases', () => {
    expect(cleanEntity('  the Load Balancer.')).toBe('Load Balancer');
    expect(cleanEntity('Draw a Web App')).toBe('Web App');
    expect(cleanEntity('LLM (language model)')).toBe('LLM');
    expect(cleanEntity('this is a whole sentence that names no single thing at all')).toBe('');
    // the joining word left where a list's last item was cut off
    expect(cleanEntity(' and')).toBe('');
    expect(extractSpec('write code, run tests, fix bugs, and go back to run tests').entities).not.toContain('and');
  });

  it('names the things of a request no rule reads, with no edges, and nothing for a request that names nothing', () => {
    expect(extractSpec('Make it pretty.').entities).toEqual([]);
    expect(extractSpec('a box').entities).toEqual([]);
    expect(extractSpec('Train station, ticket office, platform.')).toEqual({ entities: ['Train station', 'ticket office', 'platform'], edges: [] });
    expect(extractSpec('I mostly care about the espresso machine and the grinder.')).toEqual({ entities: ['espresso machine', 'grinder'], edges: [] });
  });
});
