"""Explicit crisis statements in languages other than English.

The tone detector's lexicon, attribution and danger frames read English (its tokens are ASCII words and the
spaCy model is English), and the MiniLM head barely reads other languages: on independently written sets,
crisis messages wholly in another language were caught about half as often as English ones. No parser for
these languages ships offline, so this module does the narrow thing a parser is not needed for: it finds the
few first-person statements that mean the same in every chat ("I want to die", "I'm going to kill myself",
"I don't want to live anymore", "I took all the pills") in 26 languages, and nothing broader: "he's going
to kill me" is left out, because in every language it is mostly said of an angry parent. A statement
preceded by a negation ("no quiero morir"), beside a figurative complement ("me muero de risa", "累得想死")
or in a laughing message does not count.

Matching: Latin, Greek and Cyrillic text is compared with accents removed (people type "nao quero viver" as
often as "não quero viver"); other scripts as written. Phrases of scripts written without spaces (Chinese,
Japanese, Thai) match anywhere; the rest match whole words, and a phrase ending in ``*`` matches a word's
beginning (Korean endings: "죽고 싶*" is "죽고 싶어", "죽고 싶다", "죽고 싶네").
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

# fmt: off
# First-person statements of wanting to die or to kill oneself, or of an overdose taken, by language
# (ISO 639-1), written as people spell them; accents are dropped for matching where the script allows it.
STATEMENTS: dict[str, tuple[str, ...]] = {
    "es": (
        "quiero morir", "quiero morirme", "me quiero morir", "me quiero matar", "quiero matarme",
        "voy a matarme", "me voy a matar", "suicidarme", "me voy a suicidar", "quitarme la vida",
        "ya no quiero vivir", "no quiero seguir viviendo", "acabar con mi vida", "no vale la pena vivir",
        "me tomé todas las pastillas", "me tomé un frasco", "no quiero despertar", "no quiero despertarme",
        "me quiero suicidar",
    ),
    "pt": (
        "quero morrer", "vou me matar", "quero me matar", "me suicidar", "não quero mais viver",
        "não aguento mais viver", "tirar minha vida", "tirar a minha vida", "acabar com a minha vida",
        "tomei todos os remédios", "tomei a cartela toda", "não quero acordar",
    ),
    "fr": (
        "je veux mourir", "envie de mourir", "je vais me tuer", "je veux me tuer", "me suicider",
        "je ne veux plus vivre", "mettre fin à mes jours", "mettre fin à ma vie", "en finir avec la vie",
        "pris tous mes cachets", "avalé tous mes cachets", "je veux plus vivre", "j'veux mourir",
        "jveux mourir", "envie d'en finir", "me foutre en l'air",
    ),
    "de": (
        "ich will sterben", "ich möchte sterben", "will nicht mehr leben", "möchte nicht mehr leben",
        "ich bring mich um", "ich bringe mich um", "ich will mich umbringen", "ich werde mich umbringen",
        "mir das leben nehmen", "selbstmordgedanken", "suizidgedanken", "alle tabletten genommen",
        "will nicht mehr aufwachen", "möchte nicht mehr aufwachen", "abschiedsbrief",
    ),
    "it": (
        "voglio morire", "mi voglio uccidere", "voglio uccidermi", "voglio ammazzarmi", "suicidarmi",
        "non voglio più vivere", "togliermi la vita", "ho preso tutte le pillole", "la faccio finita",
        "voglio farla finita", "non voglio svegliarmi",
    ),
    "nl": (
        "ik wil dood", "ik wil niet meer leven", "zelfmoordgedachten", "mezelf van kant maken",
        "een einde aan mijn leven", "alle pillen ingenomen", "ik wil niet meer wakker worden",
    ),
    "pl": (
        "chcę umrzeć", "chcę się zabić", "zabiję się", "nie chcę już żyć", "nie chcę dalej żyć",
        "odebrać sobie życie", "myśli samobójcze",
    ),
    "ro": ("vreau să mor", "să mă sinucid", "nu mai vreau să trăiesc"),
    "ru": (
        "хочу умереть", "не хочу жить", "не хочу больше жить", "покончить с собой", "покончу с собой",
        "убью себя", "убить себя", "думаю о суициде", "суицидальн*", "наглотал* таблеток",
    ),
    "uk": ("хочу померти", "не хочу жити", "покінчити з собою", "вбити себе", "вб'ю себе", "суїцидальн*"),
    "el": ("θέλω να πεθάνω", "να αυτοκτονήσω", "θα αυτοκτονήσω"),
    "tr": (
        "ölmek istiyorum", "kendimi öldüreceğim", "kendimi öldürmek", "intihar edeceğim",
        "intihar etmek istiyorum", "yaşamak istemiyorum",
    ),
    "ar": (
        "أريد أن أموت", "بدي موت", "ابي اموت", "سأقتل نفسي", "سوف اقتل نفسي", "هقتل نفسي", "راح اقتل نفسي",
        "ابي انتحر", "بدي انتحر", "بنتحر", "افكر في الانتحار", "افكر بالانتحار", "لا اريد ان اعيش",
        "مش عايز اعيش", "مش عايزة اعيش",
    ),
    "fa": ("میخوام بمیرم", "می خواهم بمیرم", "خودکشی کنم", "خودمو بکشم"),
    "he": ("אני רוצה למות", "רוצה להתאבד", "אני אתאבד", "לא רוצה לחיות"),
    "hi": (
        "मरना चाहता", "मरना चाहती", "मर जाना चाहता", "मर जाना चाहती", "आत्महत्या करना चाहता",
        "आत्महत्या करना चाहती", "आत्महत्या कर लूंगा", "आत्महत्या कर लूंगी", "खुद को मार*",
        "जीना नहीं चाहता", "जीना नहीं चाहती",
        # romanised ("Hinglish")
        "marna chahta", "marna chahti", "mar jana chahta", "mar jana chahti", "mar jaana chahta",
        "mar jaana chahti", "khud ko maar*", "khudkushi karna chahta", "khudkushi karna chahti",
        "khudkushi kar lunga", "khudkushi kar lungi", "jeena nahi chahta", "jeena nahi chahti",
        "jina nahi chahta", "jina nahi chahti",
    ),
    "ur": (
        "مرنا چاہتا", "مرنا چاہتی", "خودکشی کرنا چاہتا", "خودکشی کرنا چاہتی", "جینا نہیں چاہتا",
        "جینا نہیں چاہتی",
    ),
    "bn": ("মরতে চাই", "মরে যেতে চাই", "আত্মহত্যা করতে চাই", "আত্মহত্যা করব", "বাঁচতে চাই না"),
    "tl": (
        "gusto ko nang mamatay", "gusto kong mamatay", "gusto ko na mamatay", "magpapakamatay",
        "magpakamatay na lang", "papatayin ko ang sarili ko", "ayoko nang mabuhay", "ayoko na mabuhay",
        "pagod na akong mabuhay",
    ),
    "id": (
        "ingin mati", "pengen mati", "pingin mati", "mau mati aja", "ingin bunuh diri", "mau bunuh diri",
        "pengen bunuh diri", "nak bunuh diri", "nak mati", "tidak ingin hidup lagi", "gak mau hidup lagi",
        "ga mau hidup lagi",
    ),
    "vi": ("muốn chết", "muốn tự tử", "sẽ tự tử", "định tự tử", "muốn tự sát", "không muốn sống nữa"),
    "th": ("อยากตาย", "ฆ่าตัวตาย", "ไม่อยากมีชีวิตอยู่"),
    "ja": ("死にたい", "消えたい", "自殺したい", "自殺する", "生きていたくない", "生きたくない"),
    "zh": ("想死", "不想活了", "想自杀", "要自杀", "想自殺", "要自殺", "结束自己的生命", "結束自己的生命"),
    "ko": ("죽고 싶*", "죽고싶*", "자살하고 싶*", "자살할*", "살고 싶지 않*", "살기 싫*", "사라지고 싶*"),
    "sw": ("nataka kufa", "nitajiua", "nataka kujiua", "sitaki kuishi"),
}

# A word right before a statement that denies it ("no quiero morir", "не хочу умереть").
NEGATIONS: frozenset[str] = frozenset({
    "no", "não", "non", "ne", "pas", "nie", "nicht", "kein", "niet", "nu", "не", "ні", "hindi", "tidak",
    "gak", "ga", "bukan", "không", "değil", "δεν", "לא", "नहीं", "nahi", "nahin", "sitaki",
})

# Complements that make a statement figurative: dying of laughter, hunger, shame ("me muero de risa"), or
# missing someone to death ("想死你了").
FIGURATIVE_AFTER: tuple[str, ...] = (
    "de risa", "de la risa", "de vergüenza", "de la vergüenza", "de hambre", "de ganas", "de sueño",
    "de amor", "de rir", "de vergonha", "de fome", "de saudade", "de rire", "de honte", "de faim", "d'ennui",
    "dal ridere", "dalle risate", "di fame", "vor lachen", "vor hunger", "van het lachen", "ze śmiechu",
    "со смеху", "от смеха", "sa tawa", "你", "我了",
)
# Words right before a statement that make it a hyperbole: so tired, hungry, embarrassed that... ("mệt muốn
# chết", "累得想死", "恥ずかしくて死にたい", "qué vergüenza, me quiero morir").
FIGURATIVE_BEFORE: tuple[str, ...] = (
    "cười", "mệt", "đói", "nóng", "lạnh", "得", "恥ずかしくて", "恥ずかしすぎて", "จน", "malu", "vergüenza",
    "vergonha", "honte", "peinlich", "vergogna",
)
# Laughter in the message: a hyperbole among friends, like "lol" in English.
LAUGHTER: tuple[str, ...] = (
    "haha", "hehe", "lol", "lmao", "jaja", "kkk", "rsrs", "mdr", "ptdr", "хаха", "www", "笑", "哈哈", "ㅋㅋ",
    "555", "wkwk", "😂", "🤣", "💀",
)
# fmt: on

# Scripts with spaces between words: phrases in them match whole words. Others (CJK, Thai) match anywhere.
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_ACCENTED_SCRIPTS = 0x0530  # Latin, Greek and Cyrillic end here: their accents are dropped for matching
_ALEF_FORMS = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ى": "ي", "ة": "ه", "\u200c": " "})


def fold(text: str) -> str:
    """Lower case, accents of Latin, Greek and Cyrillic letters dropped, Arabic alef forms unified."""
    out: list[str] = []
    for char in unicodedata.normalize("NFKD", text.casefold()):
        if unicodedata.combining(char) and out and ord(out[-1]) < _ACCENTED_SCRIPTS:
            continue
        out.append(char)
    return unicodedata.normalize("NFC", "".join(out)).translate(_ALEF_FORMS).replace("\u2019", "'")


def _pattern(phrase: str) -> re.Pattern[str]:
    folded = fold(phrase)
    prefix = folded.endswith("*")
    body = re.escape(folded.rstrip("*")).replace(r"\ ", r"\s+").replace(r"\*", r"\w*")
    if _UNSPACED.search(folded):
        return re.compile(body)
    return re.compile(rf"(?<!\w){body}" + ("" if prefix else r"(?!\w)"))


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((phrase, _pattern(phrase)) for phrases in STATEMENTS.values() for phrase in phrases)


@cache
def _folded_words() -> tuple[frozenset[str], tuple[str, ...], tuple[str, ...]]:
    """NEGATIONS, FIGURATIVE_AFTER and FIGURATIVE_BEFORE folded like the text they are compared with."""
    return (
        frozenset(fold(word) for word in NEGATIONS),
        tuple(fold(word) for word in FIGURATIVE_AFTER),
        tuple(fold(word) for word in FIGURATIVE_BEFORE),
    )


def _negated(text: str, start: int) -> bool:
    words = text[:start].split()
    return bool(words) and words[-1].strip(",.!?") in _folded_words()[0]


def _figurative(text: str, start: int, end: int) -> bool:
    _, after_words, before_words = _folded_words()
    before, after = text[:start].rstrip(" ,.!?"), text[end:].lstrip()
    return after.startswith(after_words) or before.endswith(before_words)


def crisis_statements(text: str) -> tuple[str, ...]:
    """The explicit non-English crisis statements in `text` that stand: not negated, not figurative, not
    in a laughing message. Empty for English text and for any text without one."""
    folded = fold(text)
    if _laughing(text, folded):
        return ()
    matches = [
        (m.start(), m.end(), phrase) for phrase, pattern in _patterns() for m in pattern.finditer(folded)
    ]
    # Longest first: a denied or figurative statement also denies the shorter ones inside it ("qué vergüenza,
    # me quiero morir" is not rescued by its "quiero morir").
    matches.sort(key=lambda m: (m[0] - m[1], m[0]))
    claimed: list[tuple[int, int]] = []
    found: list[str] = []
    for start, end, phrase in matches:
        if any(start < c_end and c_start < end for c_start, c_end in claimed):
            continue
        claimed.append((start, end))
        if not _negated(folded, start) and not _figurative(folded, start, end) and phrase not in found:
            found.append(phrase)
    return tuple(found)


def _laughing(text: str, folded: str) -> bool:
    return any(laugh in folded or laugh in text for laugh in LAUGHTER)
