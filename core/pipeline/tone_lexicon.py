"""Curated tone lexicon: weighted phrases, modifiers, combination multipliers.

Pure data, no behaviour: :mod:`core.pipeline.tone` reads it. Phrases are written the way people type them;
the detector normalises both the phrases and the user's text the same way (lower case, contractions
expanded, so "can't cope" also matches "cant cope" and "cannot cope"). A trailing ``*`` on a word matches
any word starting with that prefix ("suicid*" matches "suicidal" and "suicide").

Each group is ``(category, level, weight, phrases)``. ``level`` is one of the four tone levels of
docs/architecture.md or ``"modifier"`` (time pressure: it never scores on its own, it only enables a
combination multiplier).
Weights are calibrated against the thresholds in ``ToneConfig``: one crisis phrase reaches crisis, one
elevated phrase reaches elevated, one concern phrase reaches concern, a weak cue alone stays below concern
and only places the text in the uncertain band.
"""

from __future__ import annotations

from types import MappingProxyType

# Data tables, packed by hand: one phrase per line would make this file three times longer.
# fmt: off

# ---------------------------------------------------------------------------------------------------------
# Weighted phrase groups
# ---------------------------------------------------------------------------------------------------------
PhraseGroup = tuple[str, str, float, tuple[str, ...]]

SLANG_IDEATION: tuple[str, ...] = (
    "kms", "ctb", "unalive myself", "unaliving myself", "unalive me", "sewerslide", "going to od",
    "want to od", "about to od",
)
SLANG_SELF_HARM: tuple[str, ...] = (
    "self harmed", "sh again", "sh urges", "urge to sh", "urges to sh", "want to sh", "going to sh",
    "relapsed on sh", "sh relapse",
)
# A verb that quotes the slang rather than uses it: "someone said kms about their homework".
QUOTING: frozenset[str] = frozenset({"said", "says", "saying", "typed", "texted", "wrote", "posted", "means"})
# Laughter that turns slang into a joke ("kms lol this meeting"); emoji are read from the raw text.
JOKING: frozenset[str] = frozenset({"lol", "lmao", "lmfao", "haha", "hahaha", "jk", "rofl", "😂", "💀", "🤣"})

CRISIS_GROUPS: tuple[PhraseGroup, ...] = (
    ("suicidal_ideation", "crisis", 10.0, (
        "kill myself", "killing myself", "end my life", "ending my life", "take my own life",
        "take my life", "taking my own life", "want to die", "wanna die", "wish i was dead",
        "wish i were dead", "better off dead", "better off without me", "better off if i", "suicid*",
        "end it all", "ending it all", "nothing to live for", "never wake up", "not wake up",
        "stop existing", "cease to exist", "sleep forever", "disappear forever", "disappeared for good",
        "disappear for good", "goodbye letter*", "goodbye note*", "say goodbye to everyone",
        "the only way out", "ways to die", "how to die", "painless way*", "jump off", "jumping off",
        "stepping off", "step off the", "hang myself", "hanging myself", "shoot myself", "slit my",
        "want it all to end", "want it all to stop", "what's the point of living",
        "what's the point in living", "if i'm gone", "if i was gone", "if i were gone", "end it tonight",
        "end it today", "saving up my pills", "stockpiling pills", "tired of living",
        "tired of being alive", "won't need it", "won't need them", "giving away my",
        "do something to myself", "not be here tomorrow", "wish i'd never been born", "want to disappear",
        "wants to die", "kill himself", "kill herself", "kill themselves", "killed himself",
        "killed herself", "take his own life", "take her own life", "take their own life", "end his life",
        "end her life",
    )),
    # Inverted: these state a reason to live; only their *negation* is a crisis cue ("no reason to live",
    # "I don't want to be alive", "I can't see the point in living"). Un-negated they score nothing.
    ("suicidal_ideation", "inverted", 10.0, (
        "reason to live", "reason to keep living", "reason to be alive", "reason for me to be alive",
        "point in living", "point of living", "worth living", "want to be alive", "want to live anymore",
        "want to be here anymore", "want to exist", "want to keep living", "want to wake up tomorrow",
        "point in going on", "point of going on", "point in carrying on", "point of carrying on",
        "point in waking up", "point of waking up", "point in being alive", "point of being alive",
    )),
    ("self_harm", "crisis", 10.0, (
        "hurt myself", "hurting myself", "harm myself", "harming myself", "self harm", "self harming",
        "cut myself", "cutting myself", "cutting again", "urge to cut", "urges to cut", "burn myself",
        "burned myself", "burning myself", "hit myself", "hitting myself", "starve myself",
        "starving myself", "punish myself", "punishing myself", "cutting herself", "cutting himself",
        "cuts herself", "cuts himself", "hurting herself", "hurting himself", "hurt herself",
        "hurt himself",
    )),
    ("immediate_danger", "crisis", 10.0, (
        "going to hurt me", "gonna hurt me", "threatened to kill", "threatening to kill",
        "threatens to kill", "hit me", "hits me", "hitting me", "beat me", "beats me", "beating me",
        "choked me", "strangled me", "hits her", "hit her again", "beats her", "not safe at home",
        "don't feel safe", "i'm not safe", "in danger", "following me home", "has a gun", "has a knife",
        "locked me in",
    )),
    # Crisis slang and abbreviations, as words ("kms", "ctb", "sh'd" -> "self harmed", "od'd" -> "overdosed"):
    # discarded when the message laughs (JOKING: "kms lol this meeting").
    ("suicidal_ideation", "crisis", 10.0, SLANG_IDEATION),
    ("self_harm", "crisis", 10.0, SLANG_SELF_HARM),
    ("overdose", "crisis", 10.0, (
        "took too many pills", "more of my meds than", "took all my pills", "pills lined up",
        "have the pills", "overdos*", "swallowed a bottle", "swallowed a whole bottle", "swallowed all",
        "swallowed pills",
    )),
)

ELEVATED_GROUPS: tuple[PhraseGroup, ...] = (
    ("panic", "elevated", 5.0, (
        "panic attack*", "panicking", "can't breathe", "heart is pounding", "heart pounding",
        "heart is racing", "heart racing", "chest is tight", "chest tight", "hyperventilating",
        "freaking out", "losing my mind", "going crazy", "can't calm down", "spiraling", "spiralling",
        "meltdown", "can't think straight", "about to pass out", "won't stop trembling",
        "can't stop shaking", "terrified", "feel numb", "totally numb", "emotionally numb", "numb inside",
    )),
    ("panic", "elevated", 3.0, ("panic", "panicky")),
    ("dissociation", "elevated", 4.0, ("shaking", "trembling", "numb")),
    ("severe_distress", "elevated", 5.0, (
        "can't cope", "can't take it anymore", "can't take this anymore", "can't do this anymore",
        "can't go on", "can't keep going", "keep going much longer", "breaking point", "at my limit",
        "end of my rope", "end of my tether", "falling apart", "broken inside", "completely broken",
        "can't function", "barely function", "can't stop crying", "crying for hours", "sobbing",
        "suffocating", "walls are closing in", "in so much pain", "unbearable", "can't bear",
        "too much to bear", "hate myself", "hate my life", "worthless", "total failure",
        "complete failure", "failure at everything", "pull myself together", "can't get out of bed",
        "barely get out of bed", "stopped eating", "haven't eaten", "desperate", "in agony",
        "screaming inside", "tormented", "no escape", "can't escape", "haven't slept in days",
        "falling to pieces",
    )),
    (
        "relapse", "elevated",
        5.0,
        ("relapsed", "relapse", "fell off the wagon", "back to drinking", "using again"),
    ),
    ("hopelessness", "elevated", 5.0, (
        "hopeless", "no hope", "lost all hope", "losing hope", "no way out", "no future",
        "nothing will change", "nothing will ever change", "never going to get better",
        "ever going to get better", "will never get better", "what's the point of trying",
        "what's the point of anything", "what's the point anymore", "no point in trying",
        "no point anymore", "why even bother", "give up on everything", "want to give up",
        "nothing matters", "nothing i do matters", "can't see a way", "beyond help", "no one can help me",
    )),
    ("hopelessness", "elevated", 3.0, ("trapped", "stuck forever", "doomed", "giving up", "nothing left")),
    ("severe_distress", "elevated", 3.0, ("drowning", "breaking down", "can't handle")),
    ("dissociation", "elevated", 5.0, (
        "feel empty", "totally empty", "empty inside", "not even real", "feel unreal", "outside my body",
        "dissociat*", "flashback*", "nightmares about", "reliving it", "ptsd",
    )),
)

CONCERN_GROUPS: tuple[PhraseGroup, ...] = (
    ("isolation", "concern", 2.5, (
        "nobody cares", "no one cares", "all alone", "so alone", "completely alone", "utterly alone",
        "alone in this", "no one to talk to", "nobody to talk to", "no friends", "nobody understands",
        "no one understands", "nobody gets me", "no one gets me", "nobody really gets me", "isolated",
        "lonely", "loneliness", "left out", "feel invisible", "abandoned", "nobody would notice",
        "no one would notice", "feel alone",
    )),
    ("stress", "concern", 2.0, (
        "stressed", "stressful", "stress", "under pressure", "so much pressure", "tense", "on edge",
        "overwhelm*", "swamped", "too much on my plate", "frazzled", "really struggling", "can't focus",
        "can't concentrate", "worried", "worry", "worrying", "overthinking", "overthink",
        "weighing on me", "can't keep up", "falling behind",
    )),
    ("stress", "concern", 1.5, ("frustrated", "upset", "irritable", "struggling", "struggle")),
    ("sadness", "concern", 2.0, (
        "sad", "feeling down", "feel down", "been down", "so down", "bit down", "pretty down",
        "kind of down", "feeling low", "feel low", "kind of low", "a bit low", "pretty low", "really low",
        "so low", "unhappy", "heartbr*", "crying", "cried", "in tears", "grief", "grieving",
        "passed away", "lost my mom", "lost my dad", "lost my mother", "lost my father", "lost my job",
        "rejected", "rejection", "it stings", "disappointed", "unmotivated", "no motivation", "gloomy",
        "bummed", "broke up", "breakup", "divorce", "miss her", "miss him", "i miss my",
    )),
    ("sadness", "concern", 3.0, ("miserable", "depressed", "depression", "devastat*", "a mess")),
    ("anxiety", "concern", 2.0, (
        "anxious", "anxiety", "nervous", "scared", "afraid", "fear", "dread", "dreading", "uneasy",
        "restless", "racing thoughts", "mind keeps racing", "mind racing", "freaked out", "jittery",
    )),
    ("anxiety", "concern", 3.0, ("worried sick", "scared to death", "constant fear")),
    ("burnout", "concern", 2.0, (
        "burnt out", "burned out", "burnout", "exhausted", "drained", "worn out", "running on empty",
        "tired all the time", "no energy", "fatigue", "need a break", "nothing feels fun",
        "nothing is fun", "lost interest", "sick of everything",
    )),
    ("sleep_loss", "concern", 2.0, (
        "can't sleep", "can't seem to sleep", "insomnia", "haven't slept", "not sleeping", "barely sleep",
        "barely slept", "awake all night", "up all night", "no sleep",
    )),
    ("self_worth", "concern", 2.0, (
        "not good enough", "failure", "ashamed", "imposter", "impostor", "hate how i", "i'm a burden",
        "such a burden", "frustrated with myself",
    )),
    ("self_worth", "concern", 1.5, ("useless", "guilty", "shame")),
    ("weak", "concern", 1.0, (
        "tired", "rough", "hard time", "hard week", "tough", "ugh", "meh", "bad day", "long day",
        "annoyed", "hurt", "hurts", "lost", "confused", "off today", "not great", "could be better",
    )),
    ("weak", "concern", 2.0, ("not okay", "not ok", "not doing well", "not doing okay", "not fine")),
)

MODIFIER_GROUPS: tuple[PhraseGroup, ...] = (
    ("time_pressure", "modifier", 0.0, (
        "deadline*", "due tomorrow", "due tonight", "due today", "in an hour", "in ten minutes",
        "in a few hours", "tomorrow morning", "by friday", "running out of time", "last minute",
        "out of time", "no time", "exam tomorrow", "interview tomorrow",
    )),
)

PHRASE_GROUPS: tuple[PhraseGroup, ...] = CRISIS_GROUPS + ELEVATED_GROUPS + CONCERN_GROUPS + MODIFIER_GROUPS

# Figurative or benign uses: a match inside one of these spans is discarded ("this bug is killing me",
# "dying to try", "kill the process").
BENIGN_PHRASES: tuple[str, ...] = (
    "killing me lol", "is killing me", "are killing me", "killing it", "killed it", "kill it", "dying to",
    "die of embarrassment", "died laughing", "die laughing", "to die for", "kill a process",
    "kill the process", "kill this process", "kill the job", "kill the server", "hurt my chances",
    "battery is dying", "phone is dying", "dead tired", "no stress", "stress test", "stress testing",
    "panic button", "the point of this", "what's the point of this", "pressure washer", "blood pressure",
    "tire pressure", "sad trombone", "no worries", "not worried", "hard drive", "rough draft", "rough idea",
    "rough estimate", "lost my keys", "lost my phone", "lost my wallet", "tough question", "tough call",
    "feel free", "hit me up", "hits me up", "it hit me", "it hits me", "beat me at", "beat me to",
    "in danger of", "jump off the call", "jump off this call", "past tense", "present tense", "future tense",
    "what a shame", "guilty pleasure", "test failure", "build failure", "failure mode", "point of failure",
    "failure rate", "kernel panic", "isolated environment", "isolated test", "shaking hands", "lost track",
    "the sad part", "sad thing is", "sad to say", "kill for", "killed for", "die for",
)

# Risk evidence: words naming the domain of a danger to life (dying, the means, self-injury, an attack, a
# medical emergency). Not cues: nothing here scores. The tone head may read a message as crisis only when
# one of these occurs, about the user and not negated; its similarity alone ("take care!", a recipe) is never
# evidence. Figurative uses are dropped by BENIGN_PHRASES first ("dying to", "kill it").
RISK_TERMS: tuple[str, ...] = (
    "die", "dying", "died", "dead", "death", "suicid*", "kill*", "kms", "unalive*", "sewerslide", "ctb",
    "end it", "end things", "end everything", "ending it", "ending things", "end my", "not be here",
    "not be around", "not wake up", "not waking up", "gone", "burden", "goodbye*", "last message",
    "pill*", "painkiller*", "tablet*", "meds", "overdos*", "paracetamol", "rope", "noose", "blade*",
    "razor*", "knife", "knives", "gun", "bridge", "ledge", "roof", "jump", "hang", "gas", "poison*", "bleach",
    "cut*", "bleed*", "blood", "scratch*", "burn*", "stab*", "shoot*", "broke in", "break in",
    "breaking in", "hiding", "attack*", "threat*", "locked", "chest", "breathe", "breath", "ambulance",
    "emergency", "unconscious", "seizure", "fire", "choking", "drown*", "hurt", "harm",
    # weapons and other means
    "pistol", "rifle", "firearm", "machete", "weapon", "belt", "tracks", "platform", "exhaust", "ligature",
    "cord", "banister", "shotgun", "crowbar",
    "carbon monoxide", "engine running", "insulin", "antidepressants", "sleeping tablets", "into the sea",
    "into the river", "into traffic", "in front of a train", "in front of a bus",
    # bodily emergencies said in the present
    "blacked out", "passed out", "dizzy", "vomiting", "swelling", "airway", "allergic reaction",
    "anaphylaxis", "epipen", "stroke", "bleeding", "collapsed",
    # farewells and arrangements
    "funeral", "affairs in order",
    # venom and allergy, exposure, entrapment, incapacity: emergencies told by their cause
    "stung", "bitten", "hives", "wheez*", "venom*", "snake*", "hypotherm*", "frostbit*", "through the ice",
    "soaked through", "soaking wet",
    "trapped", "pinned", "electrocut*", "electric shock", "smoke", "car crash", "crashed the car",
    "crashed my car",
    "can barely stand", "can not stand up", "worst pain",
    # danger from others: pursuit, strangers, intruders
    "chased", "chasing me", "stranger", "intruder*", "shooter", "gunman",
)

# Head-only crisis vetoes (`core.pipeline.tone`): a question asked for knowledge, or an everyday cause named
# for a bodily complaint. Neither applies beside an explicit cue or a danger frame.
KNOWLEDGE_OPENINGS: tuple[tuple[str, ...], ...] = (
    ("how", "do", "you"), ("how", "do", "i", "do"), ("how", "does", "one"), ("how", "to"),
    ("how", "can", "you"), ("how", "should", "you"), ("what", "should", "you"), ("what", "do", "you", "do"),
    ("what", "to", "do"), ("when", "should", "you"), ("is", "it", "safe"),
    ("what", "are", "the", "signs"), ("what", "are", "the", "symptoms"), ("what", "are", "the", "warning"),
    ("what", "is", "the", "number"), ("what", "is", "the", "difference"), ("what", "does"),
    ("if", "someone"), ("if", "somebody"), ("if", "a"), ("if", "you"),
)
PURPOSE_NOUNS: frozenset[str] = frozenset({
    "workshop", "newsletter", "class", "course", "training", "school", "presentation", "poster", "leaflet",
    "handout", "seminar", "lecture", "exam", "assignment", "project", "article", "blog", "podcast", "talk",
    "curriculum", "module", "team", "staff", "volunteers",
})
# Words before an everyday cause that make it the scene, not the cause ("while hiking", "during my workout").
SETTINGS: frozenset[str] = frozenset({"while", "during", "when"})
LETHAL_WORDS: frozenset[str] = frozenset({"die", "dying", "dead", "death", "lethal", "fatal", "painless"})
ORDINARY_CAUSES: frozenset[str] = frozenset({
    "coffee", "tea", "soup", "kettle", "stove", "oven", "pan", "iron", "toaster", "pizza", "tetanus",
    "vaccine", "vaccination", "jab", "booster", "stairs", "gym", "workout", "jog", "jogging", "hike",
    "hiking", "marathon", "shaving", "splinter", "papercut", "sunburn", "hangover", "hungover",
    # a complaint told as minor: "just a little nick", "a cute little bruise", "walking it off"
    "nick", "bruise", "bruised", "bandaid", "scratchy", "onion", "onions", "curb", "cupboard", "ankle",
})
# A crisis left behind: a distant past ("a year ago", "in college") told beside a present that is well ("today
# I got promoted", "I'm fine now"). Vetoes the head-only crisis path, like a knowledge question.
DISTANT_PAST: tuple[str, ...] = (
    "year ago", "years ago", "months ago", "last year", "last month", "in college", "back in college",
    "back in school", "used to", "in my teens", "when i was",
)
WELL_NOW: frozenset[str] = frozenset({
    "fine", "better", "recovered", "healed", "clean", "sober", "great", "happy", "promoted", "thriving",
    "counselor", "counsellor", "volunteer", "grateful",
})
# Asking what a word means is not saying it: "what does ctb mean".
MEANING_WORDS: frozenset[str] = frozenset({"mean", "means", "meaning", "stand", "stands", "acronym", "slang"})

# ---------------------------------------------------------------------------------------------------------
# Modifiers
# ---------------------------------------------------------------------------------------------------------
# Words that cancel the following cue when they appear shortly before it, within the same clause.
NEGATION_CUES: frozenset[str] = frozenset({"not", "no", "never", "without", "hardly", "nor", "neither"})
# Negation followed by one of these is not a negation ("not just sad", "not only scared", "don't know how many
# ... can't think straight").
NEGATION_EXCEPTIONS: frozenset[str] = frozenset({"just", "only", "even", "sure", "know"})
# Past-tense framing: the cue is about how things were, not how they are ("I used to struggle").
PAST_CUES: tuple[str, ...] = (
    "used to", "years ago", "year ago", "months ago", "back then", "no longer", "back in college",
    "back in school", "back in uni", "back in high school", "when i was a", "when i was younger",
)
# Tokens that end the negation / intensifier window: a new clause starts.
CLAUSE_BREAKS: frozenset[str] = frozenset(
    {".", "!", "?", ";", ",", ":", "but", "and", "because", "though", "although", "yet", "stop", "help"}
)
SENTENCE_BREAKS: frozenset[str] = frozenset({".", "!", "?", ";"})

INTENSIFIERS: frozenset[str] = frozenset({
    "so", "really", "very", "extremely", "incredibly", "completely", "totally", "utterly", "absolutely",
    "super", "deeply", "terribly", "seriously", "truly", "awfully", "insanely", "too", "constantly",
    "always", "unbearably", "horribly",
})
DIMINISHERS: frozenset[str] = frozenset({"bit", "little", "slightly", "kinda", "somewhat", "mildly", "sort"})

# Contractions and apostrophe-less spellings, expanded before matching (applied to phrases and text).
CONTRACTIONS: MappingProxyType[str, str] = MappingProxyType({
    "can't": "can not", "cant": "can not", "cannot": "can not", "won't": "will not", "wont": "will not",
    "don't": "do not", "dont": "do not", "doesn't": "does not", "doesnt": "does not", "didn't": "did not",
    "didnt": "did not", "isn't": "is not", "isnt": "is not", "wasn't": "was not", "wasnt": "was not",
    "aren't": "are not", "arent": "are not", "weren't": "were not", "haven't": "have not",
    "havent": "have not", "hasn't": "has not", "hadn't": "had not", "couldn't": "could not",
    "couldnt": "could not", "wouldn't": "would not", "wouldnt": "would not", "shouldn't": "should not",
    "i'm": "i am", "im": "i am", "i've": "i have", "ive": "i have", "i'll": "i will", "i'd": "i would",
    "you're": "you are", "we're": "we are", "they're": "they are", "it's": "it is", "that's": "that is",
    "he's": "he is", "she's": "she is", "what's": "what is", "there's": "there is", "who's": "who is",
    "gonna": "going to", "wanna": "want to", "whats": "what is",
    # crisis slang written with an apostrophe: "i sh'd again", "think i od'd"
    "sh'd": "self harmed", "sh'ing": "self harming", "od'd": "overdosed", "od'ing": "overdosing",
})

# ---------------------------------------------------------------------------------------------------------
# Observational filter: who or what is the cue about?
# ---------------------------------------------------------------------------------------------------------
FIRST_PERSON: frozenset[str] = frozenset({"i", "me", "myself", "my", "mine", "we", "us", "our", "ourselves"})
THIRD_PERSON: frozenset[str] = frozenset({
    "he", "she", "they", "him", "her", "them", "his", "hers", "their", "himself", "herself", "themselves",
    "someone", "somebody", "everyone", "everybody", "people", "person", "nobody's",
})
THIRD_PARTY_NOUNS: frozenset[str] = frozenset({
    "friend", "friends", "sister", "brother", "mom", "mum", "mother", "dad", "father", "parent",
    "parents", "son", "daughter", "wife", "husband", "boyfriend", "girlfriend", "coworker", "coworkers",
    "colleague", "colleagues", "boss", "roommate", "flatmate", "neighbor", "neighbour", "cousin", "aunt",
    "uncle", "grandma", "grandpa", "kid", "kids", "child", "children", "student", "students", "team",
    "lead", "client", "patient", "patients", "dog", "cat", "pet", "nurses", "teens", "adolescents",
    "victims", "survivors", "users", "customer", "classmate", "teammate", "baby",
})
FICTION_MARKERS: frozenset[str] = frozenset({
    "character", "characters", "protagonist", "antagonist", "villain", "hero", "heroine", "novel",
    "story", "book", "movie", "film", "series", "episode", "screenplay", "script", "scene", "chapter",
    "plot", "poem", "song", "lyrics", "game", "fanfic", "fiction", "roleplay", "narrator", "dialogue",
    "sitcom",
})
NEWS_MARKERS: frozenset[str] = frozenset({
    "news", "headline", "headlines", "article", "report", "documentary", "coverage", "twitter",
    "earthquake", "hurricane", "flood", "wildfire", "war", "election", "famine", "pandemic", "shooting",
    "refugees", "economy", "politics", "climate", "tsunami", "disaster", "layoffs", "government", "media",
})
# Object right after a cue names who it happens to ("threatened to kill me"); a topic preposition before a
# cue in a framed sentence marks a subject of discussion ("a poem about grief", "signs of depression").
OBJECT_SELF: frozenset[str] = frozenset({"me", "myself"})
OBJECT_OTHER: frozenset[str] = frozenset({"him", "her", "them", "himself", "herself", "themselves"})
TOPIC_PREPOSITIONS: frozenset[str] = frozenset({"about", "on", "of", "regarding"})
# Coursework and work products: "my" before one of these is the user's assignment, not the user's distress
# ("for my nursing exam, how much paracetamol is an overdose?"). Not frame markers on their own: "my friend
# said she wants to die before her exam" is still a friend in danger.
STUDY_NOUNS: frozenset[str] = frozenset({
    "exam", "exams", "homework", "assignment", "coursework", "course", "module", "class", "essay", "paper",
    "thesis", "dissertation", "presentation", "project", "report", "quiz", "test", "lecture", "seminar",
    "textbook", "syllabus", "research", "article", "blog", "podcast", "novel", "story", "script",
    "newsletter", "workshop", "handout", "leaflet", "curriculum",
})
ASKING: frozenset[str] = frozenset({
    "?", "what", "how", "why", "which", "where", "explain", "sources", "source", "references", "cite",
    "summarize", "summarise", "outline", "define", "describe", "compare", "list",
})
INFO_MARKERS: frozenset[str] = frozenset({
    "signs", "symptoms", "statistics", "rates", "research", "study", "studies", "essay", "paper", "class",
    "psychology", "therapists", "causes", "definition", "prevalence", "lecture", "thesis", "summarize",
})

# ---------------------------------------------------------------------------------------------------------
# Combination multipliers: (category a, category b, multiplier). Applied once each when both categories
# have a personal, non-negated match; the product is capped by ToneConfig.max_multiplier.
# ---------------------------------------------------------------------------------------------------------
COMBINATIONS: tuple[tuple[str, str, float], ...] = (
    ("hopelessness", "isolation", 1.35),
    ("hopelessness", "suicidal_ideation", 1.4),
    ("severe_distress", "time_pressure", 1.25),
    ("panic", "time_pressure", 1.2),
    ("stress", "time_pressure", 1.25),
    ("anxiety", "time_pressure", 1.2),
    ("sleep_loss", "anxiety", 1.2),
    ("sleep_loss", "sadness", 1.2),
    ("sleep_loss", "severe_distress", 1.2),
    ("self_harm", "severe_distress", 1.3),
    ("self_harm", "sadness", 1.3),
    ("immediate_danger", "anxiety", 1.2),
    ("relapse", "severe_distress", 1.3),
    ("dissociation", "panic", 1.2),
    ("burnout", "hopelessness", 1.2),
    ("isolation", "sadness", 1.2),
)

# Other spellings of the levels, including the original system's (HIGH, MEDIUM, crisis_support, ...).
LEVEL_ALIASES: MappingProxyType[str, str] = MappingProxyType({
    "high": "crisis", "medium": "elevated", "low": "concern", "none": "conversational",
})

# ---------------------------------------------------------------------------------------------------------
# Support guidance attached to a result (no medical claims; resources current as of 2025).
# ---------------------------------------------------------------------------------------------------------
CRISIS_SUPPORT = (
    "If you might act on thoughts of ending your life or hurting yourself, or you are in danger right now, "
    "please contact your local emergency services (911 in the US, 999 in the UK, 112 in the EU) or go to "
    "the nearest emergency department. You can also reach a crisis line at any hour: call or text 988 in "
    "the US (988 Suicide & Crisis Lifeline), or call Samaritans on 116 123 in the UK and Ireland; "
    "findahelpline.com lists free, confidential lines in other countries. If you can, let someone you "
    "trust know how you are feeling, or ask them to stay with you. I'm an AI and can't be there in "
    "person, but I'm here to keep talking with you."
)
CARE_EMERGENCY_SUPPORT = (
    "If someone with you is not breathing, will not wake, is having a seizure, is bleeding heavily, has "
    "swallowed something harmful, is being attacked or may be about to end their life, call your local "
    "emergency services now (911 in the US, 999 in the UK, 112 in the EU): the call handler will tell you "
    "what to do until help arrives. For a swallowed poison or medicine, a poison control centre "
    "(1-800-222-1222 in the US) can also advise. Don't wait to see if it passes. If they are thinking about "
    "suicide, a crisis line can support them and you: 988 in the US, Samaritans on 116 123 in the UK and "
    "Ireland, findahelpline.com elsewhere."
)
THIRD_PARTY_SUPPORT = (
    "If someone you know may be in danger or talking about ending their life, you can encourage them to "
    "call or text a crisis line (988 in the US, Samaritans on 116 123 in the UK and Ireland, "
    "findahelpline.com elsewhere). If their life is at risk right now, contact local emergency services "
    "(911 US, 999 UK, 112 EU). Staying with them, or making sure someone they trust is with them, can help."
)
# fmt: on
