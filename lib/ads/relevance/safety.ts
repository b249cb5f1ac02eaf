import type { ReadConversation } from './conversation';
import { SENSITIVE_CATEGORIES, type SensitiveCategory } from './safety-categories';
import { ModelScorer, type SafetyModel } from './model';
import trained from './safety-model.json';

const MODEL = new ModelScorer(trained as SafetyModel);

/**
 * Conversations that never get an ad, whatever a campaign's hints say: health and medical
 * conditions, mental health and self-harm, sexual content, politics and elections, and a user
 * who appears to be a child. Read from the user's messages, in two ways:
 *
 * - **Patterns** over the plain words (lower case, no accents, no punctuation, apostrophes joined:
 *   "I'm 13" is read "im 13"): phrases that name the topic, and words near each other ("my left
 *   knee swells up", harm near "myself"). One found anywhere is enough.
 * - **A model** (./model.ts) for what the patterns miss: every word weighed, so a conversation
 *   that only describes its topic is caught too.
 *
 * The same words always give the same answer, on every server, and both can be read and argued
 * with (ARCHITECTURE.md, "Ads that understand the conversation"). They lean to
 * caution: a missed sensitive conversation shows an ad where none belongs, a false alarm only
 * costs one ad. Measured on the labelled sets in lib/ads/relevance/labelled/ (labelled.test.ts).
 */

export { SENSITIVE_CATEGORIES, type SensitiveCategory } from './safety-categories';

const AGE_WORDS = 'five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen';
const CHILD_AGE = `(?:[5-9]|1[0-7]|${AGE_WORDS})`;
/** Words after a number that make it something else than an age ("I'm 15 minutes away", "I'm 6 foot"). */
const NOT_AGE =
  '(?! (?:years? (?!old)|yrs? (?!old)|months?|days?|minutes?|mins?|hours?|hrs?|weeks?|percent|dollars|bucks|of|k|foot|feet|ft|inches|cm|kg|lbs|pounds|stone|miles|km|to|out|hundred|thousand|grand|and a half|points?|pages?|steps?|sessions?|chapters?|episodes?|units?)\\b)';
const BODY_PART =
  'head|neck|back|chest|stomach|tummy|belly|knee|knees|ankle|ankles|foot|feet|hip|hips|shoulder|shoulders|wrist|wrists|elbow|arm|arms|leg|legs|ear|ears|eye|eyes|throat|tooth|teeth|jaw|joint|joints|heel|toe|toes|finger|fingers|hand|hands|skin|side|ribs|groin|bladder|bowel|lungs|heart';
const KIN =
  'mom|mum|mother|dad|father|wife|husband|partner|friend|brother|sister|son|daughter|grandma|grandpa|grandmother|grandfather|aunt|uncle|cousin|baby|dog|cat|pet|best friend';

/**
 * Two sets of words in one message, at most `gap` words apart, in either order: "my left knee
 * swells up and aches", "tight in my chest". What generalises past fixed phrases.
 */
function near(a: string, b: string, gap = 4): string {
  const between = `(?: [a-z0-9]+){0,${gap}} `;
  return `(?:${a})${between}(?:${b})|(?:${b})${between}(?:${a})`;
}

/** Words for what a body does when something is wrong with it. */
const SYMPTOM =
  'hurts?|hurting|aches?|ached|aching|pain|pains|painful|sore|swell|swells|swelled|swelling|swollen|tight|tightness|numb|tingl(?:e|es|ing|y)|clicks|clicking|stiff|stiffness|cramps?|cramping|throb(?:s|bing)?|itch(?:es|ing|y)?|bleed(?:s|ing)?|bled|bruised?|bruising|spasms?|weak|weakness|burns when|stings when|pounding|racing|races|flutter(?:s|ing)?|twinges?|popping|giving way|gave way|locks up|killing me';
/** Parts of a body. */
const BODY_PARTS =
  'head|neck|back|lower back|spine|chest|stomach|tummy|belly|gut|abdomen|knee|knees|ankle|ankles|foot|feet|hip|hips|shoulder|shoulders|wrist|wrists|elbow|elbows|arm|arms|leg|legs|calf|calves|shin|shins|hamstring|ear|ears|eye|eyes|throat|tooth|teeth|gums?|jaw|joint|joints|heel|heels|toe|toes|finger|fingers|hand|hands|skin|ribs|groin|bladder|bowels?|lungs?|heart|breast|breasts|testicles?|balls|nose|sinuses|glands?|lymph nodes?|moles?|pee|urine|poop|stool|period|periods';
/** Harming oneself. */
const HARM = 'cut|cuts|cutting|burn|burning|hurt|hurting|harm|harming|hit|hitting|punish|punishing|starve|starving';

/** Each category's patterns, as regular expressions over the plain words (module comment). */
const PATTERNS: Record<SensitiveCategory, string[]> = {
  health: [
    'symptoms?',
    'diagnos(?:is|ed|e|es)',
    'medications?',
    'medicines?',
    'meds',
    'dosages?',
    'doses? of',
    'prescri(?:ption|ptions|bed|be)',
    'side effects?',
    'painkillers?',
    'ibuprofen|paracetamol|acetaminophen|tylenol|advil|aspirin|antibiotics?|antidepressants?|insulin|steroids?|opioids?|ozempic|semaglutide|metformin|statins?',
    'chemo(?:therapy)?|radiotherapy|radiation therapy',
    'cancer|tumou?rs?|leukemia|lymphoma|melanoma',
    'diabet(?:es|ic)|asthma|epilep(?:sy|tic)|arthritis|dementia|alzheimers?|parkinsons?|crohns|celiac|coeliac|eczema|psoriasis|acne|rosacea|shingles|herpes|hepatitis|pneumonia|bronchitis|tuberculosis|sepsis|anemi(?:a|c)|thyroid',
    'allerg(?:y|ies|ic)',
    '(?:ear|eye|sinus|chest|urinary|bladder|kidney|skin|yeast|bacterial|viral|fungal|tooth|wound|throat|lung|staph) infections?|infected (?:cut|wound|tooth|toe|finger|piercing|bite)|uti',
    'fevers?|feverish|running a temperature|have a temperature|has a temperature',
    'coughs?|coughing',
    'sore throat|runny nose|stuffy nose|congest(?:ed|ion)',
    'headaches?|migraines?',
    'nause(?:a|ous)|vomit(?:ing|ed)?|throwing up|threw up|diarrh(?:o)?ea|constipat(?:ed|ion)',
    'rashes|(?:a|the|skin|heat|itchy|red) rash(?! decision)|hives|itchy|blisters?',
    'bleeding(?! edge)|blood in|blood pressure|blood tests?|blood sugar|blood work|cholesterol',
    'heart attack|cardiac|palpitations|arrhythmia|had a stroke|stroke symptoms',
    'surger(?:y|ies)|surgeon|operation on|post op|anesthe(?:sia|tic)|anaesthe(?:sia|tic)',
    'hospital(?:ized|ised)?|emergency room|\\ber\\b visit|urgent care|ambulance|icu',
    'doctors?|physicians?|gp appointment|my gp|nurse practitioner|dermatologist|cardiologist|oncologist|neurologist|gyn(?:a)?ecologist|obgyn|pediatrician|paediatrician',
    'pregnan(?:t|cy|cies)|miscarri(?:age|ed)|trimester|ovulat(?:ion|ing)|fertility|ivf|contracepti(?:on|ve)|birth control|period is late|missed (?:my )?period|menopause|endometriosis|pcos',
    '\\bstds?\\b|\\bstis?\\b|\\bhiv\\b|(?<!hearing |study |visual |teaching |first |learning |navigation )\\baids\\b|chlamydia|gonorrh(?:o)?ea|syphilis',
    'covid|coronavirus|influenza|the flu|flu shot|flu symptoms|vaccin(?:e|es|ated|ation)',
    'injur(?:y|ies|ed)|sprain(?:ed|s)?|fracture(?:d|s)?|torn (?:acl|ligament|meniscus|muscle)|concussion|dislocated|tendonitis|tendinitis|shin splints|plantar fasciitis|stress fracture|pulled (?:a )?muscle|strained',
    `broken (?:${BODY_PART}|bone|bones)`,
    `(?:${BODY_PART}) (?:pain|pains|hurts|hurt|aches|ache|aching|is swollen|swelling|injury)`,
    `(?:my|the) (?:${BODY_PART}) (?:is|are|has been|have been|keeps?) (?:hurting|aching|sore|swollen|numb|tingling|bleeding|itching)`,
    'in (?:a lot of |so much |constant |chronic )?pain|chronic pain|sharp pain|dull pain|pain in my|hurts when i|it hurts (?:when|to (?:walk|run|breathe|swallow|move|sit|stand|eat|pee|bend|sleep))',
    'swollen|swelling|found a lump|a lump (?:in|on)|lumps (?:in|on)|numbness|tingling|dizz(?:y|iness)|faint(?:ed|ing)|lightheaded|short of breath|shortness of breath|wheez(?:e|ing)|chronic fatigue',
    'feel(?:ing)? sick|been sick|got sick|sick with|ill with|feel(?:ing)? ill',
    '\\d+ ?mg\\b|milligrams?|tablets? a day|pills?',
    'mri|ct scan|x ?rays?|ultrasound|biopsy|lab results|scan results|(?:blood|biopsy|covid|pregnancy|std|sti|hiv|medical|cancer|smear) test results',
    'disease|diseases|illness(?:es)?|disorders?|syndrome|my condition|medical condition|heart condition|skin condition|chronic',
    'kidney (?:stones?|disease|failure|function)|liver (?:disease|failure|function|damage)|gallbladder|appendicitis|hernia|ulcers?',
    'physio(?:therapy|therapist)?|physical therap(?:y|ist)|chiropract(?:or|ic)|rehab',
    'insomnia|sleep apnea|cant sleep|cannot sleep|couldnt sleep',
    'abortion',
    'a mole on|moles? (?:on my|that|has|have|changed|changing)|skin (?:spot|lesion|growth)',
    'amoxicillin|penicillin|sertraline|prozac|zoloft|xanax|adderall|ritalin|lexapro|melatonin|benadryl|codeine|morphine|oxycodone|tramadol|gabapentin|prednisone|\\w+(?:cillin|mycin|prazole|oxetine|triptyline)',
    'tetanus|rabies|tinnitus|ringing in my ears?|hearing loss|blurr(?:y|ed) vision|vision loss|double vision|floaters',
    '(?:dog|cat|snake|spider|tick|bee|wasp|horse|rat) (?:bit|bite|bites|stung) me|bitten by|stung by|tick bite|bee sting|broke the skin|deep cut|open wound|stitches|sunburn|heat ?stroke|dehydrat(?:ed|ion)',
    'adhd|autis(?:m|tic)|ocd|dyslexi(?:a|c)',
    'overdos(?:e|ed|ing)',
    'weight loss (?:drug|drugs|pill|pills|injection|injections|shot|shots)',
    near(`my (?:${BODY_PARTS})|the (?:${BODY_PARTS})|(?:left|right|both) (?:${BODY_PARTS})|in my (?:${BODY_PARTS})`, SYMPTOM),
    'smoke (?:a|half a|about|like|over)? ?(?:a )?(?:pack|packs|cigarettes|\\d+ a day)|(?:cant|can not|cannot|couldnt) (?:breathe|catch my breath|keep food down|stop coughing)',
    'throwing up|threw up|pass(?:ed)? out|blacked out|coughing up|spotting|discharge|a fever|feel(?:s|ing)? (?:off|awful|terrible|rough|faint|weak|woozy) (?:all|since|for|today|lately)',
    'my (?:mom|mum|dad|mother|father|wife|husband|partner|grandma|grandpa) (?:has|got|was diagnosed|is in the hospital|is sick|is ill)',
  ],
  mental_health: [
    'depress(?:ed|ion|ive)',
    'anxi(?:ety|ous)',
    'panic attacks?|keep panicking|panicking all the time|started panicking for no reason',
    'suicid(?:e|al)',
    'kill(?:ing)? myself|end (?:my life|it all)|take my (?:own )?life|want(?:ed)? to die|wanna die|wish i (?:was|were) dead|better off (?:dead|without me)|not (?:want|wanting) to (?:live|be alive|be here|exist|wake up)|dont want to (?:live|be alive|be here|exist|wake up|go on)',
    'self ?harm(?:ing)?|hurt(?:ing)? myself|cut(?:ting)? myself|harm(?:ing)? myself|burn(?:ing)? myself',
    'no (?:point|reason) (?:in |to )?(?:living|anything|going on|to live|carrying on)|(?:dont|cant) see the point|what is the point of (?:living|anything|life)|whats the point of (?:living|anything|life)',
    'want to disappear|wish i could disappear|want to vanish|cant go on|cannot go on|cant take it anymore|give up on everything|giving up on life',
    'hopeless(?:ness)?|worthless(?:ness)?|empty inside|numb inside|nobody cares|no one cares about me|hate myself|everyone would be better',
    'therap(?:y|ist|ists)|counsel(?:l)?(?:ing|or|ors)|psychiatr(?:ist|y|ic)|psycholog(?:ist|ical)|mental health|mental illness|crisis line|(?:suicide|crisis|mental health|samaritans) (?:hotline|helpline)',
    'bipolar|ptsd|trauma(?:tic|tized|tised)?|schizo(?:phrenia|phrenic)|psychosis|nervous breakdown|mental breakdown',
    'grie(?:f|ving|ve)|mourn(?:ing)?|bereave(?:d|ment)|passed away|funeral|lost my (?:' + KIN + ')',
    `(?:${KIN}) (?:died|passed|is dying|was killed)`,
    'eating disorder|anorexi(?:a|c)|bulimi(?:a|c)|binge eating|binging and purging|starv(?:e|ing) myself|skip(?:ping)? meals to lose|making myself throw up',
    'lonel(?:y(?! planet)|iness)|so alone|all alone',
    'cry(?:ing)? (?:every|all the time|myself to sleep)|cant stop crying',
    'feel(?:ing)? (?:really |so |very |pretty |kind of |kinda )?(?:down|low|empty|numb|hopeless|worthless|miserable)|been (?:really |so )?down for|cant get out of bed|nothing (?:i used to enjoy|makes me happy|feels good)|numb all the time',
    'cutting again|started cutting|(?:a|one|two|three|\\d+) (?:years?|months?|weeks?|days?) clean|make myself (?:throw up|sick|vomit)|throw up after (?:i eat|eating|meals)',
    'painless way|(?:easiest|quickest|best|fastest) way to (?:die|end it)|(?:and|to) (?:not|never) wake up|intrusive thoughts|dark thoughts|suicidal thoughts|thoughts (?:of|about) (?:dying|death|hurting)|tired of (?:everything|living|life|it all|being alive)',
    'abus(?:e|ed|ive) (?:relationship|partner|parent|home)|domestic violence',
    'addict(?:ed|ion)|relapse(?:d)?|sober|sobriety|withdrawal symptoms|going through withdrawal',
    near(HARM, 'myself|yourself|my (?:arm|arms|wrist|wrists|leg|legs|thigh|thighs|skin|body)', 1),
    '(?:hide|hiding|cover|covering) (?:the |my )?(?:scars|cuts|marks|bruises)|just to feel something',
    '(?:eat|eating|keep(?:ing)? it|stay(?:ing)?|been) (?:under|below|less than) \\d+ calories|(?:skip|skipping|restrict|restricting) (?:meals|food|eating) (?:to|so|until)|eat(?:ing)? (?:without anyone|so (?:no one|nobody)) notic',
    '\\d+ calories a day|look (?:huge|fat|disgusting) in the mirror|hate my body|feel(?:ing)? fat|fasting for days|lose \\d+ (?:kg|pounds|lbs) in (?:a|one|two) weeks?',
    'giv(?:e|ing) (?:my|all my) (?:stuff|things|belongings|stuff) away|writing (?:goodbye )?letters to|before i go for good|say(?:ing)? goodbye (?:to everyone|for good|without)|tidying up before|wont be around|not (?:be )?around (?:much )?longer|no one would (?:notice|care|miss me)|nobody would (?:notice|care|miss me)',
    'nothing (?:feels|seems|is) (?:worth|good|fun|the same)|(?:havent|hasnt|cant|cannot) (?:gotten|got|get) out of bed|cant even (?:look at|get up|face)|(?:heart|chest) (?:races|racing|pounding|pounds) (?:before|when|every|whenever)|feel like i cant breathe|shaking before|dread(?:ing)? (?:every|each|going)',
  ],
  sexual: [
    'sex|sexual(?:ly)?|sexy|sexting|sext',
    'nudes?|naked(?! eye)|topless',
    'porn(?:o|ography)?|xxx|onlyfans|camgirl|hentai',
    'orgasm(?:s)?|masturbat(?:e|ion|ing)|erotic(?:a)?|fetish(?:es)?|kinky|bdsm|bondage',
    'horny|aroused|arousal|turn(?:s|ed)? me on|dirty talk|foreplay|one night stand|hookup app|hooking up with|hook up with (?:him|her|someone|a guy|a girl|them)|friends with benefits|threesome',
    'penis|vagina|genital(?:s)?|boobs|nipples?|erection|erectile|viagra|cialis|libido|lube|condoms?|sex toys?|vibrator|dildo',
    'strip club|stripper|escort(?:s)?|prostitut(?:e|ion)',
    'making out|in bed with|sleep(?:ing)? with (?:him|her|them|someone|me)|want(?:s)? to sleep with|sle(?:ep|pt) together|lose my virginity|(?<!extra )virgin(?! atlantic| islands| media| mobile| galactic| records| trains| money| coconut| olive)|intimacy|(?:be|being|get|getting) intimate|(?:spice things up|things) in the bedroom|bedroom (?:life|stuff|problems)|get (?:him|her) in the mood|the mood in bed',
    'dirty (?:texts?|messages?|jokes?|pics?)|talk dirty|flirty|roleplay as my (?:girlfriend|boyfriend|wife|husband|gf|bf)|anal|oral sex|blow ?job|hand ?job|boudoir|lingerie|sexier|revealing (?:photos?|pics?|outfit)',
  ],
  politics: [
    'elections?|electoral|midterms?|primaries|caucus',
    'vot(?:e|es|ed|ing|er|ers)|ballots?|referendum|polling station|absentee',
    'running for office|campaign trail|political campaign|campaign rally|presidential candidates?|political candidates?',
    'democrats?|democratic party|republicans?|gop|labou?r party|tor(?:y|ies)|conservative party|liberal democrats|lib dems|green party|reform uk|snp',
    'liberals|conservatives|leftists?|progressives|maga',
    'left ?wing|right ?wing|far ?left|far ?right|alt ?right',
    'parliament(?:ary)?|congress(?:man|woman|ional)?|senat(?:e|or|ors)|house of (?:commons|lords|representatives)|supreme court|prime minister|the president(?! of)|president of the (?:united states|us|usa|country|republic)|presidential|white house|downing street|mayoral|governor',
    'politic(?:s|al|ian|ians|ally)',
    'immigration (?:policy|policies|reform|law|laws|debate|bill|bills)|border wall|deport(?:ed|ation|ations)|asylum seekers?|illegal immigrants?|refugee policy',
    'gun control|second amendment|2nd amendment|gun rights|gun laws',
    'abortion (?:law|laws|rights|ban)|roe v wade|pro ?life|pro ?choice',
    'protest(?:s|ers|ing)?|demonstrat(?:ion|ions|ors) against|rall(?:y|ies) against|march(?:ed|ing)? against',
    'legislat(?:ion|ive|ure)|bill (?:passed|was passed)|filibuster|impeach(?:ed|ment)?|veto(?:ed)?',
    'socialis(?:m|t)|communis(?:m|t)|capitalis(?:m|t) vs|fascis(?:m|t)|marxis(?:m|t)|libertarian|authoritarian|dictator(?:ship)?|propaganda|ideolog(?:y|ies|ical)',
    'brexit|tax cuts|campaign finance|lobby(?:ing|ists?)|partisan|bipartisan|gerrymander(?:ing)?',
    'opinion polls?|poll numbers|approval rating',
    '(?:surveillance|immigration|climate|spending|education|healthcare|crime|voting rights|housing|abortion|gun) bill|my mp|my (?:local )?(?:councillor|congressman|congresswoman|representative|senator)|canvass(?:ing|er|ers)?|phone ?banking for',
  ],
  minor: [
    `(?<!like |as if |pretend |though )(?:im|i am|iam) (?:only |just )?${CHILD_AGE}(?: years? old| yrs? old| yo)?\\b${NOT_AGE}`,
    `${CHILD_AGE} (?:years?|yrs?) old (?:girl|boy|kid|here)`,
    `i (?:just )?turned ${CHILD_AGE}\\b${NOT_AGE}`,
    `(?:turning|gonna be|going to be|will be) ${CHILD_AGE}(?: (?:next|this) (?:week|month|year)| on my birthday)`,
    'my (?:mom|mum|mommy|mummy|dad|daddy|parents?|stepmom|stepdad) (?:wont let|will not let|doesnt let|does not let|dont let|do not let|grounded|makes me go to bed|took my phone|takes my phone)',
    'im grounded|got grounded|i was grounded|my allowance|pocket money|my babysitter|my curfew',
    'my (?:homeroom|school bus)|my (?:school )?principal (?:said|says|called|gave|told|made)|at recess|after school club',
    '(?:middle|elementary|primary|grade) school|junior high|im in (?:high school|school)|im a high schooler|as a high schooler',
    '(?:[1-9]|1[0-2])(?:st|nd|rd|th) grade|(?:[1-9]|1[0-2])(?:st|nd|rd|th) grader|(?:im in|i am in|in) grade (?:[1-9]|1[0-2])\\b|grade (?:[1-9]|1[0-2]) (?:student|class|homework|teacher|math|maths|science|english)|(?:im in|i am in) year (?:[3-9]|1[0-3])\\b|year (?:[3-9]|1[0-1]) (?:here|student|pupil|science|maths|math|english|homework|class|exams?)',
    'freshman in high school|sophomore in high school|gcses?|my sats|my exams at school',
    'im a (?:kid|child|teen|teenager|minor|preteen|tween)|i am a (?:kid|child|teen|teenager|minor)|as a (?:kid|teen|teenager) myself|underage|(?:im|i am) (?:too young to|not old enough)',
  ],
};

/** Each category's patterns as one expression: one pass over a message per category. */
const COMPILED: { category: SensitiveCategory; pattern: RegExp }[] = SENSITIVE_CATEGORIES.map((category) => ({
  category,
  pattern: new RegExp(`\\b(?:${PATTERNS[category].map((source) => `(?:${source})`).join('|')})\\b`),
}));

/**
 * The sensitive category of the conversation, or null: the patterns' first, else the model's
 * (./model.ts), which reads every word of the user's messages. The assistant's answers are not
 * read: an answer about dog food may well mention allergies, and what
 * the conversation is about is what the user wrote.
 */
export function sensitiveCategory(conversation: ReadConversation): SensitiveCategory | null {
  return patternCategory(conversation) ?? MODEL.category(conversation.userWords);
}

/** The first category whose patterns a message of the user matches, or null. */
export function patternCategory(conversation: ReadConversation): SensitiveCategory | null {
  for (const { category, pattern } of COMPILED) {
    for (const text of conversation.userText) if (pattern.test(text)) return category;
  }
  return null;
}

/** The patterns of each category, for the docs and for tests. */
export function sensitivePatterns(category: SensitiveCategory): readonly string[] {
  return PATTERNS[category];
}
