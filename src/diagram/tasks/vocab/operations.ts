import type { DomainVocab } from './types.ts';

export const operations: DomainVocab = {
  domain: 'operations',
  verbs: ['dispatches', 'pages', 'hands off to', 'ships to', 'reports to', 'inspects', 'routes to'],
  train: {
    chains: [
      'incident response :: Alert Fired > On-Call Page > Acknowledge > Investigate > Mitigate > Resolve > Postmortem',
      'warehouse inbound :: Truck Arrival > Unloading Dock > Quality Inspection > Barcode Scan > Putaway > Storage Rack',
      'manufacturing line :: Raw Material > Cutting > Welding > Painting > Assembly > Quality Control {QC} > Packaging > Dispatch',
      'change management :: Change Request > Impact Assessment > Change Advisory Board Approval {CAB approval} > Maintenance Window > Implementation > Verification',
    ],
    cycles: [
      'on-call rotation :: Alice On Call > Bob On Call > Chen On Call > Dana On Call',
      'preventive maintenance :: Inspect Equipment > Lubricate Parts > Replace Filters > Calibrate Sensors > Log Maintenance',
      'inventory replenishment :: Stock Count > Reorder Point > Purchase Order Sent > Goods Received > Shelf Restock > Sales Depletion > Cycle Count > Safety Stock Review',
    ],
    fans: [
      'dispatch center :: Dispatch Center => Ambulance 1, Ambulance 2, Fire Engine, Police Unit, Rescue Boat, Helicopter, Tow Truck, Hazmat Team, Utility Crew',
      'shift reports :: Night Shift Report, Day Shift Report, Weekend Report, Safety Log, Downtime Log => Operations Manager',
      'distribution :: Distribution Center => Store 12, Store 34, Store 56, Store 78, Store 90',
    ],
    trees: [
      'incident command :: Incident Commander > Operations Section (Fire Branch, Medical Branch), Planning Section (Situation Unit, Resources Unit), Logistics Section (Supply Unit, Food Unit, Communications Unit) @ directs',
    ],
    decisions: [
      'quality inspection :: Produce Part > Measure Tolerances > [Within Spec?] Ship Part > Update Yield Report | Scrap Part > Root Cause Analysis',
      'server alert :: CPU Alert > [Load Over 90%?] Scale Out Cluster > Notify On-Call | Log and Ignore',
    ],
    layered: [
      'data center :: Edge: Border Router, DDoS Scrubber | Aggregation: Core Switch | Compute: Rack A, Rack B, Rack C | Storage: SAN Array',
    ],
    mixed: [
      'airport operations :: Check-In Desk > Security Screening, Baggage Drop; Baggage Drop > Baggage Sorting; Security Screening > Departure Gate; Baggage Sorting > Aircraft Hold; Departure Gate > Boarding Bridge; Boarding Bridge > Aircraft Cabin; Aircraft Hold > Takeoff; Aircraft Cabin > Takeoff',
    ],
  },
  ood: {
    chains: [
      'restaurant kitchen :: Ticket Printer > Prep Station > Grill Station > Plating > Expo Window > Server Pickup > Guest Table',
      'hospital admission :: Emergency Arrival > Triage Nurse > Emergency Room Physician {ER physician} > Lab Tests > Ward Admission > Discharge Planning',
      'container shipping :: Factory Gate > Drayage Truck > Port Terminal > Customs Clearance > Cargo Ship > Destination Port > Rail Yard > Distribution Hub > Last-Mile Van > Customer Doorstep',
    ],
    cycles: [
      'bus route :: Depot > Main Street Stop > Library Stop > Hospital Stop > Stadium Stop',
      'night patrol :: North Gate > Loading Bay > Server Room > Parking Garage > Lobby Desk',
    ],
    fans: [
      'field technicians :: Service Desk => Technician Ana, Technician Ben, Technician Cho, Technician Dara, Technician Eli, Technician Fay, Technician Gus, Technician Hal, Technician Ivy',
      'sensor network :: Temperature Sensor, Humidity Sensor, Vibration Sensor, Pressure Gauge, Flow Meter, Smoke Detector, Door Sensor, Power Meter, Noise Sensor, Gas Detector => SCADA Controller',
    ],
    trees: [
      'fleet hierarchy :: Fleet Manager > Northern Depot (Truck N1, Truck N2, Truck N3), Southern Depot (Truck S1, Truck S2), Western Depot (Van W1, Van W2) @ assigns',
    ],
    decisions: [
      'parcel sorting :: Scan Parcel > Read Address > [Address Valid?] Route to Zone Belt > Load Van > Deliver Parcel | Send to Exceptions Desk > Contact Sender',
    ],
    layered: [
      'call center :: Channels: Phone Line, Live Chat, Email Inbox | Routing: Queue Router | Agents: Tier A Agent, Tier B Agent',
    ],
    mixed: [
      'power grid :: Coal Plant > Transmission Substation; Wind Farm > Transmission Substation; Solar Park > Distribution Substation, Battery Storage; Transmission Substation > Distribution Substation; Distribution Substation > Homes, Factories; Battery Storage > Distribution Substation',
    ],
  },
};
