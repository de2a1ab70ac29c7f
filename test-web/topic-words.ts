// The vocabularies of the 'topic' scenario (scenario-topic.ts): real English words, so that a model
// built from example pages a user could write sees the same words the pages use. The topic is
// beekeeping; the decoys use some of its words in another sense (a spelling bee, a queen's colonies,
// honey in recipes, swarms of drones), as real pages do.

const words = (s: string): readonly string[] => s.trim().split(/\s+/);

/** Beekeeping: what an on-topic page mostly talks about. */
export const TOPIC = words(`
  bee bees beekeeping beekeeper beekeepers hive hives apiary apiaries honeybee honeybees colony colonies
  queen queens drone drones brood comb combs honeycomb frame frames super supers nectar pollen swarm
  swarming varroa mite mites smoker veil extractor propolis beeswax wax forage foraging pollination
  pollinator pollinators nuc inspection inspections overwintering winter cluster feeder syrup larvae
  cells capped uncapping queenless requeening langstroth foundation entrance sting stings gloves
  honey harvest spring nosema chalkbrood foulbrood splits supering excluder mated mating laying workers
  nurse bumblebees orientation bloom clover heather lavender apiarist`);

/** The topic's words an off-topic page mentions when it points to the topic (a garden article on pollinators). */
export const BRIDGE = words('bee bees honeybees hive hives pollinators pollination beekeeping beekeeper nectar pollen');

/** Neutral words any page may use, whatever its subject. */
export const FILLER = words(`
  time people way day year work life part place week case point group number fact hand world area
  problem question example idea result change reason local community members season weekend morning
  evening small large early late good best simple useful important common careful regular practical
  guide tips notes advice list plan start need help keep look find show try use learn read write
  share visit open close bring move check watch follow begin finish improve explain describe`);

/** Off-topic subjects of the general sites. */
export const GENERAL: Readonly<Record<string, readonly string[]>> = {
  news: words(`election council minister government policy vote parliament budget report statement
    official announced campaign debate reform court ruling inquiry protest mayor cabinet spokesperson
    crisis agreement talks treaty sanctions opposition leader party coalition poll taxes voters`),
  sport: words(`football match goal league striker keeper referee penalty season club coach fans stadium
    tournament final championship victory defeat draw transfer midfield defender tackle score
    cricket tennis rugby athletics medal race sprint marathon cyclist`),
  money: words(`bank mortgage savings interest rate loan credit inflation market shares stock investor
    fund pension dividend portfolio currency exchange bond yield profit revenue earnings tax insurance
    budget debt account deposit broker trading`),
  travel: words(`flight airport hotel beach island resort holiday luggage passport visa train journey
    cruise itinerary museum cathedral coast mountain hiking tour guidebook booking suitcase
    destination sightseeing ferry harbour village festival`),
  food: words(`recipe kitchen oven bake roast butter flour sugar salt pepper garlic onion tomato
    sauce pasta rice chicken beef soup salad dessert cake bread cheese chef dinner lunch
    breakfast spoon whisk simmer fry`),
  tech: words(`software laptop phone app update server cloud network data security password
    browser code developer chip processor battery screen keyboard startup algorithm database
    device internet website privacy encryption upgrade storage`),
  garden: words(`garden soil compost seeds seedlings lawn hedge shrub tree roses tulips weeding pruning
    mulch greenhouse vegetables tomatoes potatoes beans watering spade trowel border bed
    flowers planting perennials annuals fertiliser allotment`),
  culture: words(`film novel author theatre concert album band singer gallery painting exhibition
    poetry director actor premiere festival orchestra opera review chapter stage critics audience
    sculpture composer drama ballet`),
  nature: words(`birds owl heron otter badger fox deer river woodland meadow wetland migration nest
    eggs feathers butterflies moths beetles wildflowers oak ash hedgerow reserve ranger species
    habitat conservation rainfall weather frost`),
  health: words(`doctor patient clinic hospital nurse treatment symptoms diet exercise sleep vitamins
    vaccine therapy surgery diagnosis medicine pharmacy blood pressure heart fitness wellbeing
    injury recovery stress`),
  cars: words(`car engine brakes tyres mileage diesel petrol electric charging motorway garage mechanic
    gearbox dashboard insurance licence parking traffic hatchback saloon suspension exhaust`),
};

/** Decoys: another subject, using some of the topic's words heavily in another sense. */
export const DECOYS: Readonly<Record<string, readonly string[]>> = {
  spelling: words(`spelling bee bees contestant contestants word words champion round rounds judge judges
    pronounce pronunciation dictionary letters school pupils finals trophy definition origin
    vowel syllable competition stage buzzer spelled`),
  royal: words(`queen queens crown throne palace coronation reign monarch court colony colonies empire
    king prince princess duke royal dynasty succession jubilee ceremony parliament governor colonial
    sovereign heir`),
  honeyfood: words(`honey glaze glazed recipe oven roast bake drizzle syrup sweet sugar butter flour
    toast yoghurt granola porridge honeycomb toffee mustard marinade lemon ginger spoon jar
    dessert cake`),
  swarm: words(`drone drones swarm swarms swarming robot robots robotics algorithm flight sensors
    autonomous formation colony worker workers queen controller navigation battery propeller
    simulation lab engineers coordination`),
};

/** The topic's words each decoy uses in its own sense, and how often (a share of its words). */
export const DECOY_SENSES: Readonly<Record<string, { words: readonly string[]; share: number }>> = {
  spelling: { words: words('bee bees queen hive swarm'), share: 0.1 },
  royal: { words: words('queen queens colony colonies drones workers swarm'), share: 0.12 },
  honeyfood: { words: words('honey honeycomb beeswax wax syrup comb pollen nectar'), share: 0.14 },
  swarm: { words: words('swarm swarming drone drones colony worker workers queen forage foraging'), share: 0.14 },
};

/** Title shapes: {0} and {1} are words of the page's vocabulary. */
export const TITLE_SHAPES: readonly string[] = [
  'A guide to {0} and {1}', '{0}: what to know about {1}', 'Notes on {0} this season', 'How we handle {0} and {1}',
  'Why {0} matters for {1}', 'Ten tips on {0}', 'The {0} question', 'Looking after {0} and {1}',
  'First steps with {0}', 'What {0} taught us about {1}', '{0} in practice', 'Common mistakes with {0}',
];
