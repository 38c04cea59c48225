"""The weak word layer of the intent classifier: topical vocabulary per intent, a little evidence per word.

The structural cues (`intent_lexicon*.py`) recognise the forms of a request; many real queries carry no such
form ("can't shake this feeling of dread", "draft the agenda for friday's planning session"). Here each word
typical of an intent adds a small amount (capped), so a query with no structural cue still leans the right
way, while a single stray word never outweighs a real cue.
"""

from __future__ import annotations

from core.pipeline.intent_cues import (
    CASUAL,
    CREATIVE,
    EMOTIONAL,
    FACTUAL,
    GENERAL,
    META,
    PROJECT,
    TECHNICAL,
    TEMPORAL,
    Cue,
    make_cue,
)

_WORD_WEIGHT = 0.45
_CAP = 3

# intent -> alternation of its topical words (regex syntax)
# fmt: off
_WORDS: tuple[tuple[str, str], ...] = (
    (EMOTIONAL, (
        r"feel|feeling|feelings|felt|heart|hearts|cry|tears|alone|lonely|sad|hurt|hurts|hurting|pain|"
        r"painful|scared|fear|fears|dread|afraid|anxious|worry|worries|hopeless|lost|loss|grief|miss|"
        r"missing|broken|exhausted|overwhelmed|stress|pressure|struggle|cope|coping|therapy|therapist|"
        r"mental|depressed|panic|upset|angry|ashamed|guilty|comfort|hug|vent|dark|empty|numb|heavy|breakup|"
        r"divorce|died|death|funeral|hospital|argument|fight|fighting|toxic|abuse|abusive|bullied|rejected|"
        r"jealous|insecure|failure|worthless|useless|anymore|disappear|sabotage|sabotaging|behind my back|"
        r"except me|life together|relationship|relationships|lonely|miserable|shake|shaking|messed up|"
        r"regret|trauma|betrayed|emotional|emotionally|healing|heal|self[- ]?doubt|confidence|motivation|"
        r"burnout|cried"
    )),
    (CASUAL, (
        r"lol|lolol|haha|hehe|lmao|omg|yay|woo|wow|cool|nice|awesome|fun|funny|joke|jk|kidding|weekend|"
        r"friday|party|bored|chill|vibe|vibes|dude|bro|mate|buddy|pal|bud|hey|hi|hello|thanks|cheers|bye|"
        r"coffee time|cooking|best day|cute|oh well|it is what it is|whatever|anyway|btw|you ever|"
        r"ever been|guess who|sunshine|beer|pizza|snack|nap|sleepy|hungry|weather today"
    )),
    (META, (
        r"your|yours|yourself|assistant|bot|chatbot|robot|ai|memory|memories|forget|forgot|save|saved|"
        r"store|stored|keep|conversation|conversations|chat|chats|answer|answers|response|responses|reply|"
        r"context|privacy|delete|deleted|make that up|made that up|hallucinat\w*|sure about that|"
        r"sound like|based on our|you actually|about me|you think|you just|do you"
    )),
    (PROJECT, (
        r"project|projects|task|tasks|deadline|deadlines|plan|planning|schedule|milestone|progress|launch|"
        r"release|team|client|meeting|standup|presentation|talk|proposal|draft|outline|report|budget|"
        r"roadmap|sprint|deliver|deliverable|goal|goals|priority|priorities|todo|status|build|building|"
        r"finish|finalise|finalize|submit|submission|portfolio|startup|business|company|product|feature|"
        r"prototype|thesis|chapter|manuscript|dissertation|grant|event|gala|campaign|agenda|session|"
        r"interns?|colleagues|seating chart|checklist|kickstarter|goes live|organi[sz]e|split the|workload|"
        r"assign|assigned|audit|quarterly|signup|ship|stakeholders|moving house|move|venue|guest list|"
        r"invoice"
    )),
    (CREATIVE, (
        r"story|stories|poem|poems|song|songs|lyrics|creative|imagine|idea|ideas|names|invent|fantasy|"
        r"fiction|character|characters|plot|world|magic|dragon|whimsical|writing|art|paint|painting|draw|"
        r"drawing|compose|rhyme|metaphor|dream|myth|legend|tale|vow|vows|tv show|movie idea|pitch me|comic|"
        r"sketch|speech|perspective|weird|funny but|silly|quirky|surreal|absurd|adventure|tavern|kingdom"
    )),
    (TEMPORAL, (
        r"ago|yesterday|recently|lately|last week|last month|last year|timeline|back then|that day|"
        r"those days|at the time|sometime|accomplished|used to|the other day"
    )),
    (FACTUAL, (
        r"name|called|favorite|allergic|address|birthday|anniversary|wife|husband|partner|sister|brother|"
        r"mom|dad|kid|kids|son|daughter|dog|cat|breed|username|password|usually|again|remind me|"
        r"decide to name"
    )),
    (TECHNICAL, (
        r"let|const|var|localstorage|null|undefined|ram|gb|cpu|runner|schedule a script|cron|"
        r"share my screen|keyboard|clean up my code|refactor|readable|lint|linter|formatter|data science"
    )),
    (GENERAL, (
        r"history of|science|country|countries|capital|population|recipe|healthy|recommend|meaning of|"
        r"definition|fun fact|planet|tallest|biggest|largest|oldest|invented|discovered|famous|"
        r"how many people|in the world|calories|nutrition"
    )),
)
# fmt: on

VOCAB_CUES: tuple[Cue, ...] = tuple(
    make_cue(intent, "vocab", _WORD_WEIGHT, rf"\b(?:{words})\b", cap=_CAP) for intent, words in _WORDS
)
