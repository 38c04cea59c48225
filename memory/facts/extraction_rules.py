"""Patterns and word lists for the rule-based fact extractor (`memory.facts.extraction`).

Everything here is an immutable constant: compiled patterns and frozen word sets (the user rule table is in
`extraction_user_rules`).
Patterns read a *normalised clause*: straight apostrophes, "I" capitalised, "I am"/"Im" -> "I'm", discourse
openers, hedges, negation and trailing corrections already removed (`extraction_clauses`). Role and pet
nouns mirror `core.relations.ROLES` / `knowledge.entities.PET_KINDS`, which memory may not import.
"""

from __future__ import annotations

import re
from types import MappingProxyType


def alternation(words: str) -> str:
    """A regex alternation over `|`-separated words, longest first, spaces matching any whitespace."""
    items = sorted({w.strip() for w in words.split("|") if w.strip()}, key=len, reverse=True)
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in items)


def _r(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


def _pairs(text: str) -> MappingProxyType[str, str]:
    return MappingProxyType(dict(pair.split("=") for pair in text.split()))


# ---------------------------------------------------------------------------------------------- vocabulary
_ROLE_TEXT = (
    "best friend|friend|sister|brother|sibling|mother|mom|mum|father|dad|parent|child|kid|son|daughter|"
    "spouse|wife|husband|partner|boyfriend|girlfriend|fiance|fiancé|fiancee|boss|manager|colleague|"
    "coworker|co-worker|roommate|flatmate|aunt|uncle|cousin|niece|nephew|grandmother|grandma|grandfather|"
    "hubby|missus|other half|team lead|"
    "grandpa|doctor|therapist|stepmom|stepdad|stepson|stepdaughter|baby"
)
_ROLE_PLURAL_TEXT = (
    "parents|kids|children|sisters|brothers|siblings|sons|daughters|grandparents|cousins|friends|"
    "roommates|colleagues|coworkers|babies|twins"
)
_PET_TEXT = (
    "dog|puppy|pup|cat|kitten|kitty|bird|parrot|budgie|fish|goldfish|hamster|rabbit|bunny|horse|pony|"
    "turtle|tortoise|snake|lizard|gecko|ferret|chinchilla|rat|mouse|guinea pig"
)
_PET_PLURAL_TEXT = (
    "dogs|puppies|cats|kittens|birds|parrots|budgies|fish|goldfish|hamsters|rabbits|bunnies|horses|"
    "ponies|turtles|tortoises|snakes|lizards|geckos|ferrets|chinchillas|rats|mice|guinea pigs"
)
ROLE = alternation(_ROLE_TEXT)
PET = alternation(_PET_TEXT)
ROLES_PL = alternation(_ROLE_PLURAL_TEXT)
PETS_PL = alternation(_PET_PLURAL_TEXT)
ROLE_WORDS = frozenset(_ROLE_TEXT.split("|"))
PET_WORDS = frozenset(_PET_TEXT.split("|")) | frozenset(_PET_PLURAL_TEXT.split("|"))
WORK_ROLES = frozenset({"boss", "manager", "colleague", "coworker", "co-worker", "colleagues", "coworkers"})
# "has a dog"/"has a cat" are relations the graph knows; other kinds become "has pet" + "<name> is a <kind>".
PET_PREDICATES = MappingProxyType({"dog": "has a dog", "cat": "has a cat"})
PLURAL_ROLE_NAMES = MappingProxyType({"kids": "children", "babies": "children"})
SINGULAR = _pairs("children=child mice=mouse puppies=puppy babies=baby bunnies=bunny ponies=pony fish=fish")
NUMBERS = _pairs("a=1 an=1 one=1 another=1 two=2 three=3 four=4 five=5 six=6 seven=7 eight=8 nine=9 ten=10")
_UNITS = "one two three four five six seven eight nine".split()
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
# An age in words, "nine" to "ninety-nine" ("fifty-two", "seventy"); `age_value` turns it into digits.
AGE_WORDS = rf"(?:(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_UNITS)}))?|{'|'.join(_TEENS)}|{'|'.join(_UNITS)})"


def age_value(text: str) -> int | None:
    """ "52" -> 52, "fifty-two" -> 52, "seventy" -> 70; None when it is neither."""
    text = text.lower().strip()
    if text.isdigit():
        return int(text)
    tens, _, unit = text.replace(" ", "-").partition("-")
    if tens in _TENS:
        return 20 + 10 * _TENS.index(tens) + (_UNITS.index(unit) + 1 if unit in _UNITS else 0)
    if tens in _TEENS and not unit:
        return 10 + _TEENS.index(tens)
    return _UNITS.index(tens) + 1 if tens in _UNITS and not unit else None


NUMBER = r"(?:\d{1,2}|a|an|one|another|two|three|four|five|six|seven|eight|nine|ten|a\s+couple\s+of)"

# Words that are never a name, a thing owned or liked on their own.
COMMON = frozenset(
    """a an the this that these those it its they them their he she him her his hers we us our you your
    i me my mine myself who what which where when why how here there is are was were be been am do does did
    has have had and or but so not no yes just really very also still now then too too well fine good
    great okay ok sure tired happy sad busy sick bored hungry home back out up down over away off named
    called lives works loves likes hates goes went said says got gets one nothing something anything
    everything someone anyone everyone all both each every some any lot lots bit kind sort thanks please
    night nights weekend weekends noon midnight morning evening moment""".split()
)
NATIONALITIES = frozenset(
    """american british english scottish welsh irish canadian australian french german italian spanish
    portuguese dutch belgian swiss austrian swedish norwegian danish finnish polish russian ukrainian greek
    turkish mexican brazilian argentinian chilean colombian peruvian chinese japanese korean indian
    pakistani vietnamese thai filipino indonesian nigerian kenyan egyptian moroccan israeli iranian
    jewish muslim christian catholic hindu buddhist""".split()
)
IDENTITY_ADJECTIVES = frozenset(
    "vegan vegetarian pescatarian diabetic celiac coeliac left-handed retired self-employed".split()
)
# "I'm a bit tired", "I have a question": heads that are moods, ailments or conversation, not facts.
NOT_A_ROLE = frozenset("bit little lot mess wreck fan big huge total complete kind sort".split())
NOT_OWNED = frozenset(
    """question questions idea ideas problem problems issue issues headache migraine cold flu fever cough
    feeling doubt doubts suggestion request favor favour moment minute second time chance plan plans bug
    error concern concerns thought thoughts answer lot few bit way job date crush dream deadline test exam
    opinion opinions interview class lecture presentation call party meeting appointment point clue hunch
    sense fun work promotion raise ticket ticket offer grade score haircut tattoo vaccine shot refund
    practice lesson lessons training shift session game match rehearsal checkup homework stomachache
    toothache hangover backache cramp rash reason feelings choice option access script list file document
    code function program table spreadsheet dataset email message text essay draft assignment task query
    recipe story link screenshot output""".split()
)
# Requests to the assistant, not life goals: "I want to know the weather".
NOT_A_GOAL = frozenset(
    """know ask see check find talk chat say tell understand order sleep nap eat grab hear share confirm
    make clarify mention add remove delete cancel change update rephrase summarize summarise translate
    go leave stop try""".split()
)
# "that song", "how you said it": about the conversation, not the user's lasting tastes.
DEICTIC = frozenset("this that these those your it its how when what where why who whatever whoever".split())
PRONOUN_OBJECTS = frozenset(
    "it this that these those them him her you me everything nothing something anything here there".split()
)

# ----------------------------------------------------------------------------------------- clause filters
QUESTION_START = _r(
    r"^(?:do|does|did|am|is|are|was|were|can|could|would|should|will|shall|have|has|had|may|might)\s+"
    r"(?:I|you|we|my|me)\b|^(?:where|what|who|whom|whose|when|why|how|which)(?:'s|\s+(?:do|does|did|am|is|"
    r"are|was|were|can|could|would|should|will|have|has|I|my))\b"
)
HYPOTHETICAL = _r(
    r"\b(?:if|unless|wish|wished|imagine|suppose|supposing|pretend|hypothetically|what if)\b|"
    r"\b(?:would|could|should|I'd)\b(?!\s+(?:really\s+)?(?:like|love)\s+to\b)"
)
REPORTED = _r(
    r"^(?!I\b|I')[^,]{0,40}?\b(?:said|says|say|told|tells|thinks|think|believes|believe|claims|claim|"
    r"claimed|reckons|suggested|heard)\b"
)
EPHEMERAL = _r(
    r"\b(?:right now|at the moment|today|tonight|this (?:morning|afternoon|evening)|for (?:lunch|dinner|"
    r"breakfast))\b"
)
HEDGE = _r(
    r"\b(?:maybe|perhaps|probably|possibly|I think|I guess|I believe|I suppose|I reckon|kind of|sort of|"
    r"might|may\s+(?:be|move|live|work|get|have|start|go|switch|need|want|try)|not sure)\b"
)
HEDGE_LEAD = _r(
    r"^(?:(?:I think|I guess|I believe|I suppose|I reckon|maybe|perhaps|probably|possibly)(?:\s+that)?,?\s+)+"
)
HEDGE_INNER = _r(r"\s+(?:probably|maybe|perhaps|possibly|eventually|soon)\b")
LEAD = _r(
    r"^(?:(?:actually|well|so|oh|ok|okay|yeah|yes|hi|hello|hey|btw|by the way|also|and|but|anyway|plus|"
    r"fun fact|just so you know|fyi|fwiw|tbh|ngl|imo|for the record|oh and|now|these days|nowadays|currently|"
    r"recently|lately|this year|next year|last year|in \d{4}|as of now|honestly|basically|um|uh)(?:\s+there)?"
    r"(?=[\s,:!.-])[\s,:!.-]*)+"
)
WE = _r(r"^(?:we(?='ve\b)|we|my family and I|(?:my|our) \w+(?: \w+)? and I|[A-Z]\w+ and I)(?=\s|'ve\b)")
# Chat drops the subject: "Just got hired by Spotify", "Living in Lima these days", "allergic to cats".
SUBJECTLESS_STATES = frozenset("allergic based married engaged originally vegan vegetarian big huge".split())
SUBJECTLESS = _r(
    r"^(?:(?:just|recently|finally|currently|also|still|now)\s+)*(?P<verb>got|moved|relocated|started|joined|grew|used|"
    r"been|raised|sold|want|wanna|hoping|trying|planning|aiming|"
    r"left|quit|bought|adopted|graduated|turned|live|work|love|hate|born|living|working|studying|doing|"
    r"saving|learning|training|allergic|based|married|engaged|originally|(?:big|huge)(?=\s+fan\b))\b"
)
ADVERB = _r(
    r"^(I(?:'m|'ve)?)\s+(?:really|just|currently|still|also|absolutely|actually|totally|truly|definitely|"
    r"now|recently|originally|mostly|honestly|genuinely|seriously|finally|officially|only)\s+"
)

# ---------------------------------------------------------------------------- negation and corrections
NEG_VERB = _r(
    r"^I (?:no longer|don't|do not|didn't|did not|never|no more|haven't|have not) "
    r"(?!(?:really )?(?:like|love|enjoy|mind|care|think|know|want|feel)\b)"
)
NEG_BE = _r(r"^I'm (?:no longer|not) (?!(?:a |really |that )?(?:big |huge )?fan of|sure|into\b)")
USED_TO = _r(r"^I used to ")
QUIT_JOB = _r(r"^I (?:quit|left|lost) my job (?:at|with) ")
SOLD = _r(r"^I (?:sold|gave away|got rid of|lost) (?:my )?")
MOVED_AWAY = _r(r"^I moved (?:out of|away from) ")
ANYMORE = _r(r"\s*\b(?:anymore|any more|any longer)\b")
CORRECTION = _r(
    r"^(?P<head>.+?\w)\s*(?:,\s*(?:and\s+|but\s+)?|(?<=\bnow)\s+|(?<=\binstead)\s+)not\s+"
    r"(?!(?:far|sure|really|too|that|so|very|only|just|bad|yet|always|much|quite)\b)"
    r"(?:in\s+|at\s+|for\s+|with\s+|a\s+|an\s+|the\s+)?(?P<old>[^,]+?)\s*[.!]*$"
)

# ----------------------------------------------------------------------------------------- object edges
TAIL = _r(
    r"(?:[\s,]+(?:now|these days|nowadays|actually|currently|at the moment|lately|too|as well|also|"
    r"though|haha|lol|btw|by the way|originally|I think|I guess|I believe|for now|again|already|still|"
    r"anyway|right now|someday|some day|one day|eventually|soon|ago|ha|for sure|anymore|any more|"
    r"yesterday|today|tonight|recently|at home|at work|last (?:night|weekend)|"
    r"this (?:morning|afternoon|evening|week)|"
    r"(?:for|over) (?:about |almost |over |nearly |the (?:last|past) )?(?:\w+|\d+) (?:years?|months?|"
    r"weeks?|days?)|since \w+|(?:last|next|this) (?:year|month|week|summer|spring|fall|autumn|winter)|"
    r"in \d{4}|(?:a few|two|three|\d+) (?:years?|months?) ago|(?:in|last|this|next) (?:early |late |mid-?)?"
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december)(?: \d{4})?|"
    r"by (?:next|this|the end of(?: the)?) \w+|by (?:19|20)\d\d)|[\s.,!?;:)]+)$"
)
PLACE_CUT = _r(
    r"\s+(?:and|but|with|for|because|since|where|which|who|when|as|to|after|before|while|near|so|"
    r"about|from)\b.*$|\s*\(.*$"
)
ORG_CUT = _r(
    r",\s*(?:our|my|a|an|the|which|who|where|\w+ing)\b.*$|"
    r"\s+(?:and|but|with|because|since|where|which|who|when|as|in|on|near|so|during|doing|while|"
    r"for (?=\d|a |the |over|about|almost|nearly|\w+ (?:years?|months?)))\b.*$"
)
THING_CUT = _r(
    r"\s+(?:because|since|but|when|so|although|though|if|unless|except|while|whenever|more than|"
    r"as long as|which|that I|than)\b.*$|\s+and\s+(?:I|it|they|that|so|the|my|its|she|he|we)\b.*$"
    r"|\s+from\s+(?:19|20)\d\d\b.*$"
)
PREFER_CUT = _r(r"\s+(?:over|to|rather than|more than|instead of|than)\b.*$")
POSSESS_CUT = _r(
    r"\s+(?:about|for|with|to|that|which|because|from|on|at|since|but|so)\b.*$"
    r"|\s+and\s+(?:the|my|it|its|it's|I|I'm|she|he|they)\b.*$"
)
VP_CUT = _r(r"\s+(?:because|since|but|so that|so I|although|though|before|and I|when I)\b.*$")
SPLIT = _r(r"\s*,\s*(?:and\s+|or\s+|&\s+)?|\s+(?:and|or|&)\s+")
ARTICLE = _r(r"^(?:a|an|the)\s+")
NAMED_AS = _r(
    r"^(?:a|an|the)?\s*(?:[\w-]+\s+){0,2}?"
    r"(?:called|named)\s+"
)
AS_ROLE = _r(r"\s+as\s+(?:a|an)\s+(?P<role>[\w -]+?)(?=\s+(?:at|for|in|and|since)\b|[,.;!]|$)")
AT_ORG = _r(r"^(?P<role>.+?)\s+(?:at|for|with)\s+(?P<org>.+)$")
FAN = _r(r"^(?:(?:big|huge|massive|great|die-hard)\s+)?(?P<o>.+?)\s+fan$")
BASED_IN = _r(r"^(?P<role>.+?)\s+(?:based|living|located)\s+in\s+(?P<place>.+)$")
ROLE_CUT = _r(r"\s+(?:in|from|with|who|that|for|since|and|but|because|of)\b.*$")
KIND_COMMA_NAME = re.compile(r"^(?i:a|an)\s+(?P<what>[\w -]{1,30}?),\s+(?P<o>[A-Z][\w'’-]+)(?:,|$)")
NAMED_THING = _r(r"^(?P<what>.+?)\s+(?:named|called)\s+(?P<o>.+)$")
AGED = _r(r"^(?P<age>\d{1,3})[- ]years?[- ]old\s+(?P<rest>.+)$")
FROM_PLACE = re.compile(r"\s+(?i:from)\s+(?P<place>[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*)\b")
LANGUAGE_LEVEL = _r(r"^(?:a\s+)?(?:little|bit\s+of|some|basic|fluent|conversational|decent|broken|both)\s+")
# Slang for a role, said the way the graph and the profile name it.
ROLE_ALIASES = MappingProxyType({"missus": "wife", "hubby": "husband", "other half": "partner"})
FAN_OF = _r(r"^(?:(?:big|huge|massive|great|die-hard)\s+)?fan\s+of\s+(?P<o>.+)$")
STUDENT = _r(r"^(?:[\w-]+\s+)?student\s+(?:at|of)\s+(?P<o>.+)$")
NAME_WORD = re.compile(r"[A-Za-zÀ-ÿ][\w'’.-]*")

# -------------------------------------------------------------------------------------------- schedules
_WD = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_PART = r"(?:\s+(?:morning|afternoon|evening|night)s?)?"
_AT = r"(?:\s+at\s+(?:\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?|noon|midnight))?"
_DAY = rf"(?:{_WD}s?|weekends?|weekdays?)"
_DATE = (
    rf"(?:{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?|(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH})"
)
WHEN = (
    rf"(?:(?:every|each)(?:\s+other)?\s+(?:day|morning|afternoon|evening|night|week|weekend|weekday|month|"
    rf"year|summer|winter|{_WD}(?:\s*(?:,|and|&|or)\s*{_WD})*){_PART}|on\s+(?:the\s+)?{_DAY}(?:\s*(?:,|and|&|or)\s*{_DAY})*{_PART}|"
    rf"(?:once|twice|three times|four times|\d+\s+times)\s+(?:a|per|every)\s+(?:day|week|month|year)|"
    rf"daily|weekly|monthly|nightly|on\s+{_DATE}){_AT}"
)
SCHEDULE_I = _r(
    rf"^I\s+(?:usually\s+|always\s+|normally\s+|typically\s+|often\s+|generally\s+|regularly\s+)?"
    rf"(?P<act>[a-z][\w'’ -]*?)\s+(?P<when>{WHEN})$"
)
SCHEDULE_MY = _r(
    rf"^my\s+(?P<event>[\w'’ -]{{2,40}}?)\s+(?:is|are)\s+(?P<when>{WHEN}|(?:on\s+)?{_DATE}{_AT})$"
)
ACT_AT = _r(r"\s+at\s+(?:\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?|noon|midnight)$")
PAST_TENSE = frozenset(
    """went had got saw did was were made took came ate met ran swam bought left told said gave spent drove
    flew wrote read sold found lost thought brought began sang sat slept won""".split()
)
SCHEDULE_LEAD = _r(rf"^(?P<when>{WHEN}),?\s+(?P<rest>I\s+.+)$")
PLURAL_DAY = _r(
    rf"^on\s+(?:the\s+)?(?P<days>.*\b(?:{_WD}s|weekends|weekdays|mornings|afternoons|evenings|nights)\b.*)$"
)
DAY_PLURAL_WORD = _r(rf"\b(?P<w>{_WD}|weekend|weekday|morning|afternoon|evening|night)s\b")
NOT_ACTIVITY = frozenset(
    """am was feel like love hate enjoy prefer want plan hope think live need wish wonder try"""
    """ get got""".split()
)

# ------------------------------------------------------------------------------------------- family rules
KIN = rf"(?:{ROLE}|{PET})"
# "my younger sister", "my twin brother": the role is still "sister"/"brother" ("my ex-wife" is not a wife).
MOD = (
    r"(?:(?:older|younger|big|little|twin|baby|elder|eldest|oldest|youngest|new|old|step)\s+|(?:half|step)-)?"
)
F_NAME_IS = _r(rf"^(?:my|the)\s+{MOD}(?P<role>{KIN})(?:'s)?\s+name\s+is\s+(?P<o>.+)$")
F_ADOPTED = _r(r"^I\s+(?:adopted|rescued)\s+(?P<o>(?-i:[A-Z])[\w'-]+)\b")
# Not items of a list: "ramen, no contest", "the beach, too much sand".
NOT_LIST_ITEM = frozenset("no not too so very super really totally always never usually obviously".split())
# Animals people keep that are not in the pet words: "a rescue greyhound called Pepper" is a pet.
ANIMAL_KINDS = frozenset(
    """greyhound labrador lab retriever corgi beagle husky poodle terrier spaniel collie shepherd dachshund
    pug bulldog chihuahua boxer rottweiler doberman schnauzer whippet lurcher tabby siamese persian ragdoll
    sphynx bengal cockatiel dragon iguana axolotl tarantula hedgehog alpaca goat chicken hen duck""".split()
)
F_CALLED = _r(
    rf"^my\s+{MOD}(?P<role>{KIN}|{ROLES_PL}|{PETS_PL})(?:'s|\s+is|\s+are)?\s+(?:called|named)\s+(?P<o>.+)$"
)
F_IS_MY = _r(rf"^(?P<o>[\w'’ .-]+?)\s+is\s+my\s+{MOD}(?P<role>{KIN})$")
F_MY_IS = _r(rf"^my\s+{MOD}(?P<role>{KIN}|{ROLES_PL}|{PETS_PL})\s+(?:is|are)\s+(?P<o>[\w'’ ,&.-]+)$")
F_HAVE_NAMED = _r(
    rf"^I\s+(?:have|adopted|rescued|own|got|keep)\s+(?:a|an|one|another)\s+{MOD}(?:[\w-]+\s+)?"
    rf"(?P<role>{KIN})\s+"
    rf"(?:named|called)\s+(?P<o>.+)$"
)
F_HAVE_COUNT = _r(
    rf"^I\s+(?:have|own)\s+(?P<n>{NUMBER})\s+{MOD}(?P<role>{ROLES_PL}|{PETS_PL}|{ROLE}|{PET})\b"
    rf"(?:\s*[,:(]?\s*(?:named\s+|called\s+)?(?P<o>.+?)\)?)?$"
)
F_MARRIED = _r(
    r"^I(?:'m|\s+(?:just\s+|recently\s+)?got)\s+(?:happily\s+)?(?P<how>married|engaged)\s+to\s+(?P<o>.+)$"
)
# "... with my wife Ana", "my sister Jo and I": a role and a capitalised name side by side, anywhere.
APPOSITIVE = re.compile(
    rf"\b(?i:my|our)\s+(?i:{MOD})(?P<role>(?i:{ROLE}|{PET}))\s+(?P<o>[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)"
)
# "My manager, Aisha, is great", "Luna, our husky, hates the vacuum" (our -> my before matching).
APPOSITIVE_COMMA = re.compile(
    rf"\b(?i:my|our)\s+(?i:{MOD})(?P<role>(?i:{ROLE}|{PET}))(?:,\s+|\s*\()"
    rf"(?P<o>[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)(?:,|\)|$)"
    rf"|^(?P<o2>[A-Z][\w'’-]+),\s+(?i:my|our)\s+(?i:{MOD})(?P<role2>(?i:{ROLE}|{PET}))(?:,|$)"
)
NOT_NAMES = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday january february march april may june july
    august september october november december i""".split()
)
DWELLING = _r(
    r"^(?:(?:a|an|the|my|our)\s+)?(?:[\w-]+\s+){0,2}(?:apartment|flat|house|home|town|village|city|suburb|"
    r"neighbou?rhood|place|condo|studio|area|part|cottage|farm)\s+(?:in|of|near|outside|outside of)\s+"
    r"(?P<o>[A-Z].+)$"
)
F_REST = _r(rf"^my\s+{MOD}(?P<role>{KIN}|{ROLES_PL}|{PETS_PL}),?\s+(?P<rest>.+)$")
# "Ethan, who's nine, is allergic to peanuts": what the relative clause says is a fact about Ethan too.
RELATIVE = re.compile(r"^(?P<name>[A-Z][\w'’-]+),\s+who(?:'s|\s+is)\s+(?P<what>[^,]+),\s+(?P<rest>.+)$")
# What a named person's own clause may teach ("Sam moved to Porto"): canonical relations (core.relations).
VERB_ADVERBS = frozenset("just also still now currently really recently only".split())
PERSON_RELATIONS = frozenset({"lives_in", "works_at", "studies_at", "born_in", "is_a", "works_as"})
THIRD_PERSON_VERB = _r(
    r"^(?:is|are|was|were|has|have|lives?|works?|loves?|likes?|hates?|enjoys?|owns?|speaks?|stud(?:y|ies)|"
    r"wants?|plans?|goes|go|doesn't|don't|does not|do not|just|also|still|now|currently|really|recently|"
    r"only|used|moved|grew|started|joined|teaches|drives?|adores?|prefers?)\b"
)
