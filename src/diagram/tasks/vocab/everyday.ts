import type { DomainVocab } from './types.ts';

export const everyday: DomainVocab = {
  domain: 'everyday life',
  verbs: ['then', 'leads to', 'goes to', 'after that', 'powers', 'needs'],
  train: {
    chains: [
      'morning routine :: Alarm > Shower > Get Dressed > Breakfast > Commute > Office',
      'making tea :: Boil Water > Warm Teapot > Add Tea Leaves > Steep > Pour > Add Milk',
      'laundry :: Sort Clothes > Wash > Rinse > Spin Dry > Hang Up > Fold > Put Away',
      'trip planning :: Pick Destination > Book Flights > Reserve Hotel > Pack Bags > Airport > Boarding > Arrival > Sightseeing > Souvenir Shopping > Flight Home > Unpack > Share Photos',
      'grocery run :: Shopping List > Supermarket Trip > Produce Aisle > Checkout Lane > Car Trunk > Kitchen Counter',
    ],
    cycles: [
      'plant care :: Water Plants > Sunlight Exposure > Growth > Pruning',
      'weekly chores :: Monday Vacuuming > Tuesday Laundry > Wednesday Dishes > Thursday Groceries > Friday Trash > Saturday Garden > Sunday Rest',
      'sleep cycle :: Light Sleep > Deep Sleep > REM Sleep > Brief Waking',
      'dishwashing :: Dirty Dishes > Dishwasher > Clean Dishes > Cupboard > Dinner Table',
    ],
    fans: [
      'home wifi :: Wi-Fi Router => Laptop, Phone, Smart TV, Tablet, Game Console, Smart Speaker, Thermostat, Doorbell Camera, Printer, E-Reader',
      'recipe ingredients :: Flour, Eggs, Sugar, Butter, Milk, Vanilla => Cake Batter',
      'family calendar :: Family Calendar => Soccer Practice, Piano Lesson, Dentist Visit, Birthday Party',
    ],
    trees: [
      'family tree :: Grandma Rose > Aunt Lily (Cousin Max, Cousin Ava), Dad (Me, Sister Emma), Uncle Tom (Cousin Leo) @ parent of',
      'closet organization :: Closet > Tops (T-Shirts, Sweaters), Bottoms (Jeans, Shorts), Accessories (Hats, Scarves, Belts) @ holds',
    ],
    decisions: [
      'rainy day :: Wake Up > Check Weather > [Is It Raining?] Take Umbrella > Catch Bus | Ride Bike',
      'dinner plan :: Open Fridge > [Enough Ingredients?] Cook at Home > Wash Up | Order Takeout > Wait for Delivery',
    ],
    layered: [
      'smart home :: Controls: Phone App, Voice Assistant | Hub: Smart Home Hub | Devices: Lights, Smart Lock, Heater',
    ],
    mixed: [
      'wedding planning :: Set Budget > Venue, Guest List; Guest List > Invitations; Venue > Caterer, Decorations; Caterer > Menu Tasting; Invitations > RSVPs; RSVPs > Seating Chart, Caterer; Menu Tasting > Seating Chart',
    ],
  },
  ood: {
    chains: [
      'bread baking :: Mix Dough > Knead > First Rise > Shape Loaf > Second Rise > Bake > Cool on Rack > Slice',
      'moving house :: Declutter > Hire Movers > Pack Boxes > Loading Truck > Drive to New Place > Unload Boxes > Unpack Kitchen > Hang Pictures > Host Housewarming > Update Address',
      'car wash :: Pre-Rinse > Foam Soap > Brush Scrub > Final Rinse > Air Dryer',
    ],
    cycles: [
      'seasons :: Spring > Summer > Autumn > Winter',
      'gym split :: Push Day > Pull Day > Leg Day > Cardio Day > Recovery Day',
    ],
    fans: [
      'power strip :: Power Strip => Desk Lamp, Monitor, Desktop PC, Phone Charger, Speaker System, Fish Tank Pump, Aroma Diffuser, Label Maker, Paper Shredder',
      'potluck :: Salad Bowl, Lasagna, Garlic Bread, Fruit Tart, Chili Pot, Sushi Platter => Potluck Table',
    ],
    trees: [
      'kitchen storage :: Kitchen > Cutlery Drawer (Forks, Spoons, Knives), Pantry (Cereal, Pasta, Rice), Fridge (Vegetables, Cheese) @ stores',
    ],
    decisions: [
      'lost keys :: Notice Missing Keys > Retrace Steps > Search Pockets > [Keys Found?] Lock Door > Leave House | Call Locksmith > Wait Outside',
    ],
    layered: [
      'home theater :: Sources: Streaming Stick, Blu-ray Player | Switching: AV Receiver | Output: Projector, Soundbar, Subwoofer',
    ],
    mixed: [
      'birthday party :: Pick Date > Send Invites, Order Cake; Send Invites > Guest Replies; Guest Replies > Buy Party Favors; Order Cake > Pick Up Cake; Pick Up Cake > Party Day; Buy Party Favors > Party Day; Party Day > Thank-You Notes',
    ],
  },
};
