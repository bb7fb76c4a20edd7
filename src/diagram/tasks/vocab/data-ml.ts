import type { DomainVocab } from './types.ts';

export const dataMl: DomainVocab = {
  domain: 'data and ML',
  verbs: ['feeds', 'produces', 'scores', 'trains', 'stores', 'loads', 'embeds', 'streams to'],
  train: {
    chains: [
      'RAG pipeline :: Documents > Chunker > Embeddings > Vector Database {vector DB} > Retriever > Reranker > LLM > Answer',
      'ETL job :: Source Database > Extract > Transform > Load > Data Warehouse > BI Dashboard',
      'model training :: Raw Data > Data Cleaning > Feature Engineering > Train/Test Split > Model Training > Evaluation > Model Registry > Deployment > Monitoring',
      'image classification :: Image Upload > Resize > Normalize > CNN Backbone > Classifier Head > Softmax > Predicted Label',
      'LLM post-training :: Base Model > Teacher Traces > Supervised Fine-Tuning {SFT} > Reward Function > Reinforcement Learning {RL} > Held-Out Evaluation > Released Model',
    ],
    cycles: [
      'active learning :: Unlabeled Pool > Query Strategy > Human Annotator > Labeled Set > Retrain Model',
      'RL loop :: Policy > Action > Environment > Reward > Gradient Update',
      'MLOps lifecycle :: Data Collection > Labeling > Training > Validation > Packaging > Serving > Drift Detection > Retraining Trigger',
    ],
    fans: [
      'feature store :: Feature Store => Fraud Model, Churn Model, Ranking Model, Pricing Model, Forecast Model, Ads Model, Search Model, Credit Model, Recommendation Model',
      'data warehouse ingestion :: CRM Export, Web Analytics, Payments Ledger, Support Tickets, Ad Spend Report, Inventory Snapshot, HR System, Email Campaigns, Product Events, Survey Responses, Call Logs => Data Warehouse',
      'ensemble :: Random Forest, Gradient Boosting, Logistic Regression, Neural Network, Naive Bayes => Voting Ensemble',
    ],
    trees: [
      'ML taxonomy :: Machine Learning > Supervised Learning (Classification, Regression), Unsupervised Learning (Clustering, Dimensionality Reduction), Reinforcement Learning (Policy Gradient, Q-Learning) @ includes',
      'dataset splits :: Full Dataset > Training Set (Train Fold 1, Train Fold 2, Train Fold 3), Validation Set, Test Set @ splits into',
    ],
    decisions: [
      'model promotion :: Data Refresh > Train Model > Evaluate Model > [Accuracy Above Threshold?] Promote to Production > Notify Stakeholders > Archive Old Model | Tune Hyperparameters > Collect More Data',
      'data validation :: Ingest Batch > [Schema Valid?] Write to Lake | Quarantine Batch > Alert Data Team',
    ],
    layered: [
      'ML platform :: Interfaces: Notebook Server, Training CLI | Orchestration: Pipeline Scheduler | Compute: GPU Cluster, CPU Pool | Storage: Feature Store, Model Registry, Dataset Bucket',
    ],
    mixed: [
      'recommendation system :: User Events > Event Stream; Event Stream > Feature Pipeline, Session Store; Feature Pipeline > Candidate Generator, Ranking Model; Candidate Generator > Ranking Model; Session Store > Ranking Model; Ranking Model > Recommendations API; Recommendations API > Mobile App',
    ],
  },
  ood: {
    chains: [
      'speech recognition :: Microphone Audio > Voice Activity Detector > Spectrogram > Acoustic Encoder > CTC Decoder > Language Model Rescorer > Transcript',
      'annotation pipeline :: Raw Images > Deduplication > Labeling Vendor > Label Audit > Gold Dataset',
      'streaming analytics :: Clickstream > Kinesis Stream > Flink Job > Sessionizer > Aggregates Table > Anomaly Detector > Pager Alert > On-Call Engineer > Incident Ticket > Postmortem Report',
    ],
    cycles: [
      'self-play :: Current Agent > Self-Play Games > Replay Buffer > Optimizer Step > Checkpoint Arena > Champion Agent',
      'experiment cycle :: Working Hypothesis > Experiment Design > Run Ablation > Analyze Metrics',
    ],
    fans: [
      'model serving :: Inference Router => Small Model, Medium Model, Large Model, Vision Model, Embedding Model, Safety Classifier',
      'label sources :: Crowd Workers, Heuristic Rules, Weak Supervision, Expert Reviewers, Synthetic Generator, Active Learner, Legacy Labels, Partner Feed, User Corrections => Label Store',
    ],
    trees: [
      'neural network zoo :: Neural Networks > Convolutional Nets (ResNet, VGG, EfficientNet), Recurrent Nets (LSTM, GRU), Transformers (BERT, GPT, T5) @ includes, has variant',
    ],
    decisions: [
      'drift check :: Score Live Traffic > Compare Distributions > [Drift Detected?] Trigger Retraining > Shadow Deploy > Swap Models | Keep Current Model > Log Drift Report',
    ],
    layered: [
      'lakehouse :: Sources: Postgres Replica, Event Firehose | Bronze: Raw Tables | Silver: Cleaned Tables, Joined Views | Gold: KPI Marts, ML Features',
    ],
    mixed: [
      'evaluation harness :: Prompt Suite > Sampler; Candidate Checkpoint > Sampler; Sampler > Judge Model, Exact-Match Scorer; Judge Model > Score Aggregator; Exact-Match Scorer > Score Aggregator; Score Aggregator > Leaderboard',
    ],
  },
};
