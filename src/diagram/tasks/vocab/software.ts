import type { DomainVocab } from './types.ts';

export const software: DomainVocab = {
  domain: 'software systems',
  verbs: ['calls', 'sends', 'queries', 'returns', 'publishes', 'reads', 'writes', 'triggers', 'forwards'],
  train: {
    chains: [
      'user login :: User > Login Page > Authentication Service {auth service} > Session Token > Dashboard',
      'web request :: Browser > DNS Resolver > Load Balancer > Web Server > Application Server > Database',
      'CI/CD :: Commit > Lint > Unit Tests > Build > Container Image > Staging Deploy > Integration Tests > Production Deploy > Smoke Tests > Release Notes',
      'bug triage :: Bug Report > Triage > Reproduction > Fix > Code Review > Merge > Hotfix Release',
      'package publishing :: Source Code > Compiler > Bundler > Minifier > Package Registry > Installer',
      'email delivery :: Compose Message > SMTP Server > Spam Filter > Mail Queue > Recipient Inbox',
      'mobile app release :: Feature Branch > Pull Request {PR} > QA Build > Beta Testers > App Store Review > Public Release',
    ],
    cycles: [
      'TCP connection :: Closed > Listen > SYN Received > Established > FIN Wait > Time Wait',
      'red-green-refactor :: Write Failing Test > Make It Pass > Refactor',
      'agile sprint :: Backlog Grooming > Sprint Planning > Development > Sprint Review > Retrospective',
      'event loop :: Poll Events > Run Callbacks > Render Frame > Idle Wait',
    ],
    fans: [
      'event notifications :: Message Broker => Email Service, SMS Gateway, Push Notifier, Audit Log, Analytics Sink, Webhook Dispatcher, Slack Bot, Billing Listener, Search Indexer, Fraud Monitor',
      'log collection :: Web Server Logs, App Logs, Firewall Logs, Kernel Logs, Database Logs, Access Logs, Proxy Logs, Cron Logs, Audit Events, Container Logs => Log Aggregator',
      'load balancing :: Load Balancer => App Server 1, App Server 2, App Server 3, App Server 4, App Server 5',
      'microservice calls :: API Gateway => Users Service, Orders Service, Catalog Service, Payments Service, Search Service, Reviews Service, Shipping Service, Inventory Service, Recommendations Service, Notifications Service',
      'monitoring :: CPU Metrics, Memory Metrics, Disk Metrics, Network Metrics, Error Rates, Latency Traces => Monitoring Dashboard',
    ],
    trees: [
      'engineering org chart :: CTO > VP Engineering (Frontend Team, Backend Team, Platform Team), VP Product (Design Team, Product Managers), Security Lead (Red Team, Compliance Team) @ manages, leads',
      'project folder structure :: Project Root > Source Folder (Components Folder, Services Folder, Helpers Folder), Tests Folder (Unit Tests Folder, End-to-End Tests Folder), Documentation Folder, Settings Folder @ contains',
    ],
    decisions: [
      'deployment gate :: Build Artifact > Run Tests > [Tests Passed?] Deploy to Staging > Notify Team > Promote Release | Rollback > Open Incident',
      'cache lookup :: Incoming Request > [Cache Hit?] Return Cached Response | Query Database > Store in Cache > Return Response',
      'login check :: Enter Credentials > Submit Form > [Password Correct?] Grant Access > Load Profile | Show Error > Lock Account > Email Security Alert',
    ],
    layered: [
      'web application :: Clients: Web App, Mobile App | Edge: API Gateway | Services: Orders Service, Users Service | Data: Database, Cache',
      'SaaS platform :: Frontend: Admin Console, Customer Portal, Public Website | Backend: REST API, GraphQL API | Storage: Primary Database, Object Storage, Search Index',
    ],
    mixed: [
      'video platform :: Uploader > Transcoder, Metadata Service; Transcoder > Thumbnail Generator, Video Storage; Thumbnail Generator > CDN; Video Storage > CDN; CDN > Viewer; Viewer > Analytics Service; Metadata Service > Search Index',
      'ecommerce backend :: Storefront > Cart Service, Catalog Service; Cart Service > Checkout Service; Checkout Service > Payment Service, Inventory Service; Payment Service > Order Database; Inventory Service > Order Database; Catalog Service > Inventory Service; Order Database > Reporting Job',
    ],
  },
  ood: {
    chains: [
      'container startup :: Dockerfile > Image Build > Image Registry > Kubernetes Scheduler > Pod > Readiness Probe > Service Endpoint',
      'OAuth authorization :: Client App > Authorization Server > Consent Screen > Authorization Code > Access Token > Resource Server',
      'compiler stages :: Lexer > Parser > Abstract Syntax Tree {AST} > Type Checker > Optimizer > Code Generator > Linker > Executable Binary > Test Harness > Release Artifact',
    ],
    cycles: [
      'HTTP keep-alive :: Idle Connection > Request Sent > Response Received > Connection Reused',
      'release train :: Feature Freeze > Release Candidate > Regression Testing > Go/No-Go Meeting > Rollout > Monitoring Window > Retro Writeup > Roadmap Update',
    ],
    fans: [
      'pub/sub :: Kafka Topic => Fraud Detector, Ledger Writer, Email Sender, Data Lake Loader, Metrics Exporter, Cache Invalidator, Audit Trail, Partner Webhook, Mobile Push, Search Reindexer',
      'telemetry :: Browser Client, iOS Client, Android Client, Desktop Client, Smart TV Client, Watch Client, Car Dashboard Client, Kiosk Client, Game Console Client => Telemetry Collector',
    ],
    trees: [
      'UI component tree :: App Shell > Header (Logo, Nav Menu, Search Bar), Main Content (Sidebar, Article View, Comment List), Footer (Legal Links, Language Picker) @ renders, contains',
    ],
    decisions: [
      'rate limiting :: API Request > Token Bucket Check > [Under Limit?] Forward to Backend > Log Success | Return 429 Error > Increment Counter',
      'feature flag :: Page Load > [Flag Enabled?] Show New Checkout | Show Legacy Checkout',
    ],
    layered: [
      'mobile banking stack :: Apps: iPhone App, Android App | Gateway: Edge Proxy | Microservices: Accounts Service, Transfers Service, Cards Service | Persistence: Ledger Database, Redis Cache',
    ],
    mixed: [
      'CI runners :: Git Push > Webhook Receiver; Webhook Receiver > Job Queue; Job Queue > Runner A, Runner B; Runner A > Artifact Store; Runner B > Artifact Store, Status Page; Artifact Store > Deployer; Deployer > Status Page',
    ],
  },
};
