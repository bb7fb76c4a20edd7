import type { DomainVocab } from './types.ts';

export const science: DomainVocab = {
  domain: 'science',
  verbs: ['produces', 'becomes', 'feeds', 'absorbs', 'releases', 'converts to', 'leads to'],
  train: {
    chains: [
      'protein synthesis :: DNA > Transcription > Messenger RNA {mRNA} > Ribosome > Translation > Polypeptide > Folded Protein',
      'scientific method :: Observation > Question > Hypothesis > Experiment > Data Analysis > Conclusion > Peer Review > Publication',
      'photosynthesis :: Sunlight > Chlorophyll > Light Reactions > ATP > Calvin Cycle > Glucose',
      'star life :: Nebula > Protostar > Main Sequence Star > Red Giant > Planetary Nebula > White Dwarf > Black Dwarf',
      'digestion :: Mouth > Esophagus > Stomach > Small Intestine > Large Intestine > Rectum',
    ],
    cycles: [
      'water cycle :: Evaporation > Condensation > Precipitation > Runoff > Collection',
      'cell cycle :: G1 Phase > S Phase > G2 Phase > Mitosis > Cytokinesis',
      'carbon cycle :: Atmospheric CO2 > Photosynthesis > Plant Biomass > Animal Consumption > Respiration > Decomposition > Fossil Fuels > Combustion',
    ],
    fans: [
      'sunlight energy :: Sun => Plants, Solar Panels, Ocean Surface, Atmosphere, Ice Caps, Deserts, Weather Systems, Coral Reefs, Algae Blooms',
      'food web :: Grass, Berries, Seeds, Insects => Field Mouse',
      'lab results :: Blood Panel, Urinalysis, X-Ray, MRI Scan, Biopsy => Diagnosis',
    ],
    trees: [
      'animal taxonomy :: Animals > Mammals (Dogs, Cats, Whales), Birds (Eagles, Penguins), Reptiles (Snakes, Lizards, Turtles) @ includes',
      'states of matter :: Matter > Solid (Crystalline Solid, Amorphous Solid), Liquid, Gas, Plasma @ includes',
    ],
    decisions: [
      'titration :: Add Titrant > Observe Color > [Endpoint Reached?] Record Volume > Calculate Concentration | Add More Titrant',
      'hypothesis testing :: Collect Sample > Compute Test Statistic > [P-Value Below 0.05?] Reject Null Hypothesis > Report Effect Size | Fail to Reject Null',
    ],
    layered: [
      'network protocol stack :: Application: HTTP, SMTP | Transport: TCP, UDP | Network: IP | Link: Ethernet, Wi-Fi',
    ],
    mixed: [
      'nitrogen cycle :: Atmospheric Nitrogen > Nitrogen-Fixing Bacteria, Lightning; Nitrogen-Fixing Bacteria > Ammonium; Lightning > Nitrates; Ammonium > Nitrifying Bacteria; Nitrifying Bacteria > Nitrates; Nitrates > Plant Uptake; Plant Uptake > Animal Protein; Animal Protein > Ammonium',
    ],
  },
  ood: {
    chains: [
      'nuclear fission :: Neutron > Uranium-235 Nucleus > Unstable Isotope > Fission Fragments > Released Neutrons > Chain Reaction',
      'vaccine development :: Antigen Discovery > Preclinical Study > Phase I Trial > Phase II Trial > Phase III Trial > Regulatory Filing > Manufacturing Scale-Up > Distribution > Post-Market Surveillance > Booster Study',
      'rock formation :: Magma > Igneous Rock > Weathering > Sediment > Sedimentary Rock > Metamorphic Rock',
    ],
    cycles: [
      'Krebs cycle :: Acetyl-CoA > Citrate > Isocitrate > Alpha-Ketoglutarate > Succinyl-CoA > Succinate > Fumarate > Malate > Oxaloacetate',
      'moon phases :: New Moon > Waxing Crescent > First Quarter > Full Moon > Last Quarter',
    ],
    fans: [
      'prism :: Glass Prism => Red Light, Orange Light, Yellow Light, Green Light, Blue Light, Violet Light',
      'watershed :: Mountain Creek, Snowmelt, Tributary River, Groundwater Spring => Main River',
    ],
    trees: [
      'periodic groups :: Elements > Metals (Alkali Metals, Transition Metals, Lanthanides), Nonmetals (Halogens, Noble Gases), Metalloids (Silicon, Boron) @ includes',
    ],
    decisions: [
      'field sample :: Collect Specimen > Label Vial > Microscope Check > [Contaminated?] Discard Specimen > Resample Site | Catalog Specimen > Sequence Genome',
    ],
    layered: [
      'trophic levels :: Producers: Phytoplankton, Kelp | Primary Consumers: Zooplankton, Sea Urchins | Secondary Consumers: Sardines | Apex Predators: Orca, Great White Shark',
    ],
    mixed: [
      'climate feedback :: Greenhouse Gases > Warming; Warming > Ice Melt, Water Vapor, Permafrost Thaw; Ice Melt > Lower Albedo; Lower Albedo > Warming; Water Vapor > Warming; Permafrost Thaw > Methane Release; Methane Release > Greenhouse Gases',
    ],
  },
};
