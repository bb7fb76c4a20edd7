import type { DomainVocab } from './types.ts';

export const business: DomainVocab = {
  domain: 'business processes',
  verbs: ['approves', 'submits', 'hands off to', 'notifies', 'bills', 'reviews', 'escalates to', 'sends'],
  train: {
    chains: [
      'order fulfillment :: Order Placed > Payment Captured > Warehouse Picking > Packing > Shipping > Out for Delivery > Delivered',
      'hiring :: Job Posting > Application > Phone Screen > Technical Interview > Onsite Interview > Offer Letter > Background Check > Onboarding',
      'purchase approval :: Purchase Request > Manager Approval > Finance Review > Purchase Order {PO} > Vendor > Invoice > Payment Run',
      'sales funnel :: Lead > Qualified Lead > Discovery Call > Demo > Proposal > Negotiation > Closed Won',
      'customer support :: Support Ticket > Triage Agent > Tier 1 Support > Tier 2 Support > Engineering Escalation > Resolution > Satisfaction Survey',
    ],
    cycles: [
      'PDCA :: Plan > Do > Check > Act',
      'invoice cycle :: Issue Invoice > Send Reminder > Receive Payment > Reconcile Accounts > Close Period',
      'product lifecycle :: Idea > Market Research > Prototype > Launch > Growth > Maturity > Decline > Retirement',
    ],
    fans: [
      'marketing channels :: Campaign Brief => Email Newsletter, Social Media, Paid Search, Billboards, Podcast Ads, Influencers, Radio Spot, Trade Show, Direct Mail, Webinar',
      'revenue streams :: Subscriptions, Licensing, Consulting, Hardware Sales, Training Courses, Affiliate Fees, Support Contracts, Marketplace Commissions, Advertising => Total Revenue',
      'customer feedback :: App Reviews, Sales Calls, Support Chats, NPS Survey, Social Mentions, Focus Groups => Product Team',
    ],
    trees: [
      'company org chart :: CEO > COO (Operations, Customer Success), CFO (Accounting, Payroll, Procurement), CMO (Brand, Growth Marketing) @ manages, oversees',
      'product catalog :: Catalog > Electronics (Laptops, Phones, Headphones), Home Goods (Furniture, Kitchenware), Apparel (Shoes, Jackets) @ includes',
    ],
    decisions: [
      'expense claim :: Submit Expense > Attach Receipt > [Under $500?] Auto Approve > Reimburse Employee | Manager Review > Finance Approval',
      'refund request :: Refund Request > [Within 30 Days?] Issue Refund > Restock Item | Offer Store Credit',
      'credit application :: Application Received > Identity Verification > Credit Check > [Credit Score OK?] Approve Loan > Send Contract > Fund Account | Reject Application > Notify Applicant > Suggest Credit Coaching',
    ],
    layered: [
      'retail supply tiers :: Suppliers: Fabric Mill, Button Factory | Manufacturing: Garment Factory | Distribution: Central Warehouse, Regional Hub | Retail: Flagship Store, Online Shop, Outlet Store',
    ],
    mixed: [
      'order system :: Customer > Web Store; Web Store > Order Service; Order Service > Payment Gateway, Warehouse System, Email Confirmation; Payment Gateway > Accounting Ledger; Warehouse System > Courier; Courier > Customer',
    ],
  },
  ood: {
    chains: [
      'procurement :: Requisition > Sourcing > Supplier Bids > Contract Award > Goods Receipt > Three-Way Match > Supplier Payout',
      'insurance claim :: First Notice of Loss {FNOL} > Adjuster Assignment > Damage Inspection > Settlement Offer > Claim Payout',
      'employee offboarding :: Resignation Letter > Exit Interview > Knowledge Transfer > Access Revocation > Final Paycheck > Alumni Network',
      'real estate deal :: Listing > Open House > Purchase Offer > Home Inspection > Appraisal > Mortgage Approval > Closing Meeting > Key Handover > Title Recording > Move-In',
    ],
    cycles: [
      'budget cycle :: Budget Draft > Department Input > Board Approval > Quarterly Tracking > Variance Report',
      'OKR cycle :: Set Objectives > Define Key Results > Weekly Check-In > Quarter-End Grading',
      'retail year :: January Sales > Spring Collection > Easter Promo > Summer Sale > Back to School > Halloween Stock > Black Friday > Holiday Rush > Year-End Inventory > Clearance Event',
    ],
    fans: [
      'franchise network :: Franchise HQ => Downtown Branch, Airport Branch, Mall Branch, Suburban Branch, University Branch, Harbor Branch, Station Branch, Stadium Branch, Lakeside Branch',
      'board reporting :: Sales Report, Finance Report, Legal Report, Risk Report, HR Report, IT Report, ESG Report, Audit Report, Strategy Memo => Board of Directors',
    ],
    trees: [
      'retail bank structure :: Bank President > Retail Banking (Branches, ATMs, Mortgages), Corporate Banking (Trade Finance, Treasury), Risk Office (Internal Audit, Fraud Unit) @ oversees, runs',
    ],
    decisions: [
      'vendor onboarding :: Vendor Application > Due Diligence > [Passes Compliance?] Add to Approved List > Sign Master Agreement | Decline Vendor',
      'discount approval :: Sales Quote > [Discount Over 20%?] VP Sign-Off > Email Quote | Auto-Send Quote',
    ],
    layered: [
      'food supply chain :: Farms: Dairy Farm, Orchard, Grain Farm | Processing: Packing Plant | Wholesale: Food Distributor | Stores: Supermarket, Corner Shop',
    ],
    mixed: [
      'marketplace :: Seller > Listing Service; Buyer > Search Page, Checkout Page; Search Page > Listing Service; Listing Service > Checkout Page; Checkout Page > Escrow Account, Review System; Escrow Account > Seller',
    ],
  },
};
