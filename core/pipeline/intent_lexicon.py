"""Intent cues about the person: facts they told, their past, their feelings.

Weights: ~2 a cue that alone names the intent, ~1 a strong hint, <1 a hint that needs company. Patterns
describe forms (question shapes, time expressions, emotion words after "I feel"), not memorised sentences,
because the classifier is judged on queries it has never seen. See `core/pipeline/intent_cues.py`.
"""

from __future__ import annotations

from core.pipeline.intent_cues import EMOTIONAL, FACTUAL, TEMPORAL, Cue, make_cue

_RELATION = (
    r"(?:wife|husband|partner|spouse|sister|brother|sibling|siblings|mom|mum|mother|dad|father|parents|son|"
    r"daughter|kids?|children|child|baby|boss|manager|friend|best friend|bff|dog|cat|pet|puppy|kitten|"
    r"doctor|dentist|therapist|landlord|girlfriend|boyfriend|gf|bf|fianc[eé]e?|roommate|flatmate|"
    r"coworker|colleague|grandma|grandpa|grandmother|grandfather|aunt|uncle|cousin|niece|nephew|"
    r"neighbou?r|teacher|coach|mentor|vet)"
)
_ATTRIBUTE = (
    r"(?:name|names|birthday|address|phone|number|email|age|favorite|allergy|allergies|allergic|"
    r"blood type|size|anniversary|password|pin|medication|meds|diet|order|called|job|username)"
)
_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_MONTHS = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
_PERIOD = r"(?:night|week|weekend|month|year|time|summer|winter|spring|fall|autumn|christmas|session)"
_PAST_ANCHOR = (
    rf"\b(?:yesterday|last (?:{_PERIOD}|{_DAYS}|{_MONTHS}|conversation|chat)|ago\b|the other (?:day|week"
    rf"|night)"
    rf"|earlier (?:this|today|that|in the)|back (?:then|when|in)|a while back|previous(?:ly)?"
    rf"|(?:since|back in|before|after) (?:{_MONTHS}|christmas|easter|thanksgiving|the holidays)\b"
    r"|\b(?:in|during|around|since|back in) (?:19|20)\d\d\b|over the (?:past|last)"
    r"|in the (?:past|last) (?:few |couple of )?\w+"
    rf"|the (?:day|night|week|weekend|month|year) (?:before|after) |since (?:{_DAYS}|{_MONTHS}|last)"
    rf"|(?:beginning|start|end) of (?:the|this|last) (?:year|month|week)|on {_DAYS}|this past"
    r"|(?:\d+|a|one|two|three|few|couple of|several) (?:\w+ )?(?:days|weeks|months|years) back"
    r"|over the (?:long )?(?:weekend|holidays|break|summer)|over (?:christmas|easter|the break))"
)
# Time expressions only point at the user's own past when the user is in the sentence
# ("who won the world cup in 2018" is a general question).
_FIRST_PERSON = r"^(?=.*\b(?:i|we|my|me|our|us)\b).*?"
_EMO_ADJ = (
    r"(?:sad|depressed|anxious|lonely|alone|isolated|overwhelmed|stressed(?: out)?|hopeless|helpless|"
    r"worthless|miserable|scared|afraid|terrified|frightened|exhausted|burn(?:ed|t) out|empty|numb|"
    r"heartbroken|devastated|crushed|angry|furious|pissed|mad|frustrated|upset|hurt|lost|stuck(?! on| with)|"
    r"down|low|blue|meh|bleh|gloomy|moody|teary|weepy|fragile|vulnerable|(?:an? )?(?:idiot|loser|fraud|joke|"
    r"disappointment)|stupid|dumb|pathetic|inadequate|incompetent|ugly|"
    r"awful|terrible|horrible|like (?:crap|shit|garbage)|guilty|ashamed|embarrassed|humiliated|insecure|"
    r"jealous|nervous|worried|panick(?:y|ing)|drained|broken|useless|defeated|discouraged|unmotivated|"
    r"unhappy|grieving|homesick|sick of|tired of|fed up|done with|on edge|restless|betrayed|rejected|"
    r"abandoned|unloved|unwanted|invisible|ignored|trapped|a mess|a wreck|(?:like )?a failure|like giving up|"
    r"like crying|like nothing|(?:like )?a burden|not good enough|not ok(?:ay)?|not fine|bad about)"
)
_DEGREE = (
    r"(?:(?:so|really|very|super|pretty|kind of|kinda|sort of|a bit|a little|completely|totally|just|"
    r"extremely|incredibly|absolutely|increasingly|always|constantly|quite|too|more|honestly|lowkey|"
    r"deeply|utterly|truly|still|getting|feeling|being|been|all|the time|that|of|like|such|such an?)\s+){0,3}"
)

# fmt: off
PERSONAL_CUES: tuple[Cue, ...] = (
    # factual_recall: a stored fact about the user's life
    make_cue(FACTUAL, "what_is_my", 1.8,
         r"\b(?:what|who|where|which|when|how old|how tall|how many) (?:is|are|was|were|do|does) (?:my"
         r"|our)\b"),
    make_cue(FACTUAL, "what_do_i", 1.6,
         r"\b(?:what|which|where|who)(?: \w+){0,2} (?:do|did|am) i (?:\w+ )?(?:drive|work|live|go|use|take|"
         r"like|love|hate|prefer|own|have|eat|drink|study|play|support|wear|call|do for|put|leave|"
         r"park|keep|store|hide|name|named)"
         r"|\bwhat (?:\w+ ){1,2}am i\b"),
    make_cue(FACTUAL, "you_remember_my", 1.8,
         r"(?<!how )\b(?:do|did|can) you (?:still |even |happen to )?(?:remember|recall|know) (?:my|what|who"
         r"|where|which|how|if|"
         r"whether|about my|the name|his|her|their)\b"),
    make_cue(FACTUAL, "remember_my", 1.3,
         r"(?<!not you )(?<!never )(?<!not )\b(?:remember|recall) (?:my|his|her|their|what my)\b"),
    make_cue(FACTUAL, "did_i_tell", 1.6,
         r"(?<!what )(?<!when )(?<!where )(?<!which )(?<!who )\b(?:did|have) i (?:ever |already )?(?:tell"
         r"|told|mention|mentioned|say|said|share|shared|give|"
         r"gave)\b"),
    make_cue(FACTUAL, "i_told_you", 1.2, r"\bi (?:think |might have |may have )?(?:told you|mentioned"
         r"|gave you)\b"),
    make_cue(FACTUAL, "remind_me", 1.8, r"\bremind me (?:what|who|where|when|which|how|of|about)\b"),
    make_cue(FACTUAL, "what_did_i_say", 1.4, r"\b(?:what|where|who|which|how) did i (?:say|tell you|mention"
         r"|call)\b"),
    make_cue(FACTUAL, "name_of", 1.0, r"\b(?:what|how) (?:is|was) (?:the )?name of\b"),
    make_cue(FACTUAL, "again", 0.9, r"(?:^|[.?!,]\s*)(?:what|who|where|which|when|how)\b[^.?!]*\bagain\W*$"),
    make_cue(FACTUAL, "their_attribute", 1.0, rf"\bwhat (?:is|was) (?:his|her|their) {_ATTRIBUTE}\b"),
    make_cue(FACTUAL, "you_know_my", 1.2, r"\byou know my\b|\bwhat (?:do )?you (?:know|remember) about my\b"),
    make_cue(FACTUAL, "that_thing_i", 1.4,
         r"\b(?:what|who|which|where) (?:is|was) (?:that|the) (?!last|first|most)\w+(?: \w+)? (?:i|my)\b"),
    make_cue(FACTUAL, "personal_question", 1.0,
         r"^\W*(?:what|which|who|where|when|how many|how much|how old)\b(?![^?]*\b(?:should|could|can|would|"
         r"best|good|better|was|were|did|last|first|ago|yesterday)\b)[^?]*\b(?:my|i)\b(?! (?:feel|felt"
         r"|think)\b)"),
    make_cue(FACTUAL, "what_did_i_pick", 1.6,
         r"\b(?:what|which)(?: \w+)? did (?:i|we) (?:end up |finally )?(?:decide|choose|choosing|pick"
         r"|picking|"
         r"settle on|go with|end up)\b|\b(?:do|did) you (?:still )?(?:have|got|keep) my\b"
         r"|\b(?:was|am) i (?:told|advised|prescribed|diagnosed|given|supposed to|meant to)\b"),
    make_cue(FACTUAL, "this_or_that", 1.2, r"\b(?:was|is) it \w+ or \w+\b|\bor was (?:that|it)\b"),
    make_cue(FACTUAL, "my_relation", 0.5, rf"\bmy {_RELATION}\b"),
    make_cue(FACTUAL, "my_attribute", 0.8, rf"\bmy (?:\w+(?:'s|s')? )?{_ATTRIBUTE}\b"),
    make_cue(FACTUAL, "about_my", 1.2, rf"\bwhat do you (?:know|remember|have) (?:about"
         rf"|on) (?:my {_RELATION}|him|her)"),
    make_cue(FACTUAL, "is_my", 0.8, r"(?:^|[,;:]\s*)(?:is|are|was|were|do|does|did) my\b"),
    make_cue(FACTUAL, "i_forget", 1.2,
         r"\b(?:i (?:forget|forgot|cannot remember|do not remember|cannot recall)|blanking on"
         r"|slipped my mind)"),
    make_cue(FACTUAL, "do_i_have", 0.8, r"\bdo i (?:have|own|take|like|hate|prefer)\b"),
    # temporal_recall: the past, anchored in time
    make_cue(TEMPORAL, "past_anchor", 1.2, _FIRST_PERSON + _PAST_ANCHOR),
    make_cue(TEMPORAL, "were_my", 0.6, r"\bwhat (?:were|was) my\b"),
    make_cue(TEMPORAL, "period", 0.5,
         rf"{_FIRST_PERSON}\b(?:this (?:morning|week|month|year|weekend|spring|summer|fall|autumn|winter)"
         rf"|recently|lately|new year'?s?|sometime in"
         rf"|(?:in|during|around) (?:{_MONTHS}|christmas|the holidays)|on {_DAYS}|so far this)\b"),
    make_cue(TEMPORAL, "when_did", 2.2, r"\bwhen (?:did|was|were|have|had) (?:i|we|my|our)\b"),
    make_cue(TEMPORAL, "personal_date", 1.0,
         r"\b(?:on|at|during|around|before|after) (?:my|our|the) (?:\w+ )?(?:day|birthday|wedding|graduation|"
         r"anniversary|honeymoon|holiday|vacation|trip|period|semester|move|breakup|surgery)\b"),
    make_cue(TEMPORAL, "the_week_i", 1.4,
         r"\bthe (?:day|week|weekend|month|year|time|night|summer|winter|morning) (?:when )?(?:i|we) "
         r"(?:was|were|had|got|\w+ed)\b|\bcompared to (?:last|before|previous)|\bbetter or worse\b"
         r"|\bhas my \w+ been\b"),
    make_cue(TEMPORAL, "past_question", 0.4, r"^\W*(?:what|how|where|who|which) (?:was|were|did)\b"),
    make_cue(TEMPORAL, "when_last", 2.2, r"\bwhen (?:was|is) (?:the|my|our) (?:last|first|previous"
         r"|most recent)\b"),
    make_cue(TEMPORAL, "last_time", 1.4,
         r"\b(?:last|first) time (?:i|we)\b|\bthe (?:last|first|most recent) (?!thing|question"
         r"|message)(?:\w+ ){1,2}(?:i|we)\b"),
    make_cue(TEMPORAL, "since", 0.8, r"\bsince (?:the|i|we|my|last|then)\b"),
    make_cue(TEMPORAL, "has_changed", 1.4,
         r"\b(?:has|have|did) (?:anything|something|things|it|my \w+)\b.{0,30}\b(?:changed|improved|gotten|"
         r"got (?:better|worse)|shifted)\b"),
    make_cue(TEMPORAL, "how_long", 1.8, r"\bhow long (?:ago|has it been|since|have i been|did i)\b"),
    make_cue(TEMPORAL, "how_often", 1.4, r"\bhow (?:often|many times|frequently) (?:have|did|do) (?:i|we)\b"),
    make_cue(TEMPORAL, "remember_when", 2.0, r"\b(?:remember|recall) (?:when|the time|that time|that day)\b"),
    make_cue(TEMPORAL, "change", 1.6,
         r"\bhow (?:has|have|did) (?:my|i|we|our|things)\b.{0,40}\b(?:change|changed|evolve|evolved|"
         r"progress|progressed|go|gone|been|develop|developed)"),
    make_cue(TEMPORAL, "over_time", 1.4,
         r"\b(?:over time|over the (?:years|months|weeks)|timeline of|chronolog\w*|history of (?:my|our"
         r"|me))\b"),
    make_cue(TEMPORAL, "used_to", 1.0, r"\bused to\b"),
    make_cue(TEMPORAL, "was_i_doing", 1.4,
         r"\bwhat (?:was|were|have) (?:i|we) (?:been )?(?:doing|up to|working on|stressing|worried"
         r"|thinking)"),
    make_cue(TEMPORAL, "past_self", 0.8,
         r"\b(?:what|where|who|how|which \w+) (?:did|was|were|have|had) (?:i|we)\b|\bdid i (?:\w+ )?(?:go|do|"
         r"eat|have|see|read|watch|buy|spend|say|get|finish|meet|visit)\b|\bi (?:told|asked) you\b"
         r"|\bwhat (?:i|we) (?:did|said|ate|watched|read)\b|\bdid (?:i|we) \w+"
         r"|\bi (?:got|had|did|went|started|finished|bought|read|saw|met|wrote|made|took|tried|visited)\b"),
    make_cue(TEMPORAL, "what_day", 1.8,
         r"\b(?:what|which) (?:day|date|time|year|month|week) (?:did|was|were|have) (?:i|we)\b"
         r"|\bhow many \w+ (?:did|have) (?:i|we)\b"),
    make_cue(TEMPORAL, "recap_period", 2.0,
         r"\b(?:recap|summary|summari[sz]e|review|overview|rundown)\b.{0,20}\b(?:my|the|this|last|past) "
         r"(?:day|week|month|year|weekend|few days)\b"),
    make_cue(TEMPORAL, "how_was", 0.8, r"\bhow (?:was|were|did) (?:my|i)\b"),
    make_cue(TEMPORAL, "how_did_go", 1.6, r"\bhow did (?:the|my|our|that|it) (?:\w+ ){0,3}go\b"),
    make_cue(TEMPORAL, "episode", 1.2,
         r"\bfrom (?:my|the|our|that) (?:\w+ )?(?:trip|vacation|holiday|wedding|visit|weekend|party|stay|"
         r"honeymoon|conference|camp)\b|\bshow me (?:everything|all)\b"
         r"|\bin the (?:days|weeks|months|years) (?:after|before|following|leading up to)\b"),
    make_cue(TEMPORAL, "happened", 1.2, r"\b(?:what|anything) happened\b|\bwhat was going on\b"),
    # emotional_support: the user's feelings, distress, grief
    make_cue(EMOTIONAL, "i_feel", 2.5,
         rf"\b(?:i am|i feel|i felt|i have been|i am feeling|i keep feeling|i get|i got|feeling|i was|"
         rf"makes me(?: feel)?|made me(?: feel)?|i always feel|i just feel|i think i am|i might be)\s+"
         rf"{_DEGREE}{_EMO_ADJ}\b"),
    make_cue(EMOTIONAL, "emotion_word", 0.9,
         r"\b(?:depress\w*|anxiety|anxious|panic attacks?|panicking|lonel\w+|grie\w+|mourning|heartbr\w+|"
         r"overwhelm\w*|burnout|burnt out|burned out|stress|stressed|stressing|cry|crying|cried|tears"
         r"|sobb\w+|"
         r"suicid\w*|self[- ]harm|kill myself|end it all|want to die|hopeless|worthless|therapy|trauma\w*|"
         r"ptsd|nightmares?|insomnia|miserable|breakup|broke up|dumped|divorc\w+|passed away|died|funeral|"
         r"miscarriage|biopsy|cancer|rejected|rejection|overthinking|ruminat\w+|intrusive thoughts|"
         r"self[- ](?:esteem|worth)|imposter syndrome|impostor syndrome|mental health|breakdown|"
         r"falling apart|tearing me apart|hurts|hurting|heartache|scared|afraid|terrified|worried|worrying|"
         r"nervous|angry|furious|upset|ashamed|guilt|shame|exhausted|drained|numb|sad|sadness|unhappy|ugh|"
         r"sigh|fml)\b|:\(|\U0001F622|\U0001F62D|\U0001F61E|\U0001F494", cap=3),
    make_cue(EMOTIONAL, "cannot_cope", 2.0,
         r"\bcannot (?:cope|take (?:it|this|any ?more)|deal(?: with (?:it|this|anything|everything|life))?|"
         r"stop (?:crying|thinking|worrying|shaking|overthinking)|sleep|breathe|get out of bed|do this"
         r"|go on|function|handle (?:it|this|anything|everything|life))\b"),
    make_cue(EMOTIONAL, "nobody_cares", 2.0,
         r"\b(?:no ?one|nobody)\b.{0,25}\b(?:cares?|understands?|listens?|loves?|likes?|notices?|noticed|"
         r"care about|would miss|texted|called|came|showed up|remembered|invited|checked on|wished|asked)\b"),
    make_cue(EMOTIONAL, "pointless", 1.5,
         r"\bwhat is the point\b|\bwhy (?:bother|even try|do i even)\b|\bgiving up\b|\bno point\b"),
    make_cue(EMOTIONAL, "need_someone", 2.0,
         r"\bneed(?:ed)? (?:someone|somebody|to talk|to vent|a hug|support)\b|\bvent(?:ing)?\b|\brant\b"
         r"|\bcan we (?:just )?talk\b|\bjust want to talk\b"),
    make_cue(EMOTIONAL, "everyone_me", 2.0,
         r"\b(?:everyone|everybody|people|they all|nobody|no one)\b.{0,15}\b(?:leaves?|hates?|ignores?|"
         r"abandons?|forgets?|laughs? at|judges?|uses?|leave|hate) me\b"
         rf"|\b(?:first|another|last) \w+ without (?:my|him|her|them)\b|\bwithout my {_RELATION}\b"
         r"|\bfreak(?:ing)? out\b|\blosing my mind\b|\bdrowning\b"),
    make_cue(EMOTIONAL, "self_blame", 1.8,
         r"\beverything i do\b|\bi (?:always|never) (?:do|get|say) (?:anything|everything|things) (?:right"
         r"|wrong)"
         r"|\bi (?:ruin|mess up|screw up) everything\b|\bletting (?:everyone|everybody|you all|them) down\b"
         r"|\bcannot (?:calm down|relax|let go|stop \w+ing)\b|\bheart (?:is )?(?:racing|pounding)\b"
         r"|\b(?:hurtful|mean to me|(?:yelled|screamed|snapped) at me|insulted me|made fun of me|hurt me|"
         r"betrayed me|lied to me|ignored me|blamed me)\b"),
    make_cue(EMOTIONAL, "dark_place", 2.0,
         r"\b(?:dark|bad|low|rough) (?:place|headspace|point|spot)\b|\brock bottom\b|\bnot in a good place\b"
         r"|\b(?:tell me|promise) (?:it|everything|things) (?:is|will be) (?:going to be )?(?:ok|okay|fine"
         r"|alright)"
         r"|\b(?:going to|will) be (?:ok|okay|alright)\b|\bcurl up\b|\bwant to disappear\b"
         r"|\bhide from (?:everyone|the world)\b|\bstay in bed all day\b|\bbehind my back\b"
         r"|\bstabbed me in the back\b"),
    make_cue(EMOTIONAL, "body_and_company", 1.8,
         r"\bfeels? like (?:i|i am|everything|nothing|no one|nobody|my life|the world)\b|\bmy (?:chest|heart|"
         r"stomach|head|body|mind|thoughts) (?:feels?|is|are|will not|keeps?|keep)\b|\bnot doing (?:great|"
         r"well|good|ok|okay|so well)\b|\b(?:stay|be) with me\b|\bkeep me company\b|\btalk me (?:through"
         r"|down)"
         r"|\bcalm me down\b|\bi (?:do not have|have) (?:anyone|no one|nobody)\b|\b(?:no friends|all alone|"
         r"by myself)\b|\b(?:bullied|harassed|abused|assaulted|left on read|left out|excluded)\b"
         r"|\b(?:failing|"
         r"a failure|bad|terrible|awful|horrible) as an? \w+|\bi am an? (?:bad|terrible|awful|horrible) "
         r"(?:mom|mother|dad|father|parent|friend|partner|person|wife|husband)\b"
         r"|\bdo not know how to (?:handle|"
         r"deal|cope|process|tell|live|feel|move on)\b|\b(?:is|was) (?:dying|so sick|in (?:the )?hospital)\b"
         r"|\bhas (?:cancer|dementia|alzheimer|a tumou?r)\b|\bfeel (?:physically )?sick\b"),
    make_cue(EMOTIONAL, "anymore", 1.2, r"\b(?:nothing|not|never|no longer|cannot)\b.{0,30}\banymore\b"),
    make_cue(EMOTIONAL, "crisis", 3.0,
         r"\b(?:do not|never) want to (?:be here|live|exist|wake up|go on)|better off without me|"
         r"no reason to live|end my life|hurt myself|kill myself|not be here anymore|disappear forever"),
    make_cue(EMOTIONAL, "rough_day", 1.6,
         r"\b(?:rough|hard|tough|bad|terrible|awful|horrible|shitty|crappy|worst|difficult|stressful) "
         r"(?:day|week|month|year|night|time|few days)\b"),
    make_cue(EMOTIONAL, "hate_miss", 1.8,
         r"\bi hate (?:myself|my life|everything|my job|my body|how i|that i|being|feeling)\b"
         r"|\bfeel(?:ing)? (?:like this|this way)\b|\bi do not know what to do\b"
         r"|\bi (?:really |so )?miss (?:my|him|her|them|home|how|the way|being|when|us|those|our)\b"),
    make_cue(EMOTIONAL, "feel_like", 1.2,
         r"\bfeel(?:ing)? like (?:a |an |nothing|no one|nobody|giving up|crying|everyone|everything|i am)"),
    make_cue(EMOTIONAL, "going_wrong", 1.8,
         r"\b(?:everything|life|things|it all|my life)\b.{0,20}\b(?:going wrong|falling apart|too much|"
         r"a mess|overwhelming|pointless|meaningless|getting worse|sucks)\b"),
    make_cue(EMOTIONAL, "spiral", 1.6,
         r"\b(?:i am|i have been|i keep|keep) (?:overthinking|spiral\w*|ruminating|doubting myself|"
         r"second[- ]guessing)"),
    make_cue(EMOTIONAL, "my_condition", 1.0, r"\bmy (?:anxiety|depression|grief|stress|panic|loneliness"
         r"|mental)\b"),
    make_cue(EMOTIONAL, "how_cope", 1.8,
         r"\bhow (?:do|can|should) i (?:deal|cope|live|get over|move on|stop feeling|feel better|process"
         r"|heal)"),
    make_cue(EMOTIONAL, "struggling", 1.6,
         r"\b(?:struggling|barely (?:holding|keeping|getting|functioning|surviving)|holding it together|"
         r"at my (?:limit|wits end)|breaking point|crushing me|killing me|eating me up|weighing on me|"
         r"feels? (?:so )?heavy|brutal|cannot get out of bed|(?:hard|impossible) to (?:get up|breathe"
         r"|focus))\b"),
    make_cue(EMOTIONAL, "life_event", 1.5,
         rf"\bi (?:just )?lost my (?:job|home|house|baby|pregnancy|{_RELATION})\b|"
         r"\bi got (?:rejected|dumped|fired|laid off|ghosted|cheated on)\b|\b(?:laid off|ghosted"
         r"|cheated on)\b"
         r"|\bat myself\b|\bin myself\b|\bi (?:failed|flunked|bombed|messed up|screwed up|ruined)\b"
         r"|\bi (?:cried|was crying|have been crying|broke down|burst into tears)\b"),
)
# fmt: on
