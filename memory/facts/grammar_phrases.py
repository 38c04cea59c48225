"""Who a clause is about and what its objects say, read off spaCy's dependency parse.

Subjects: "I"/"we" are the user ("my wife and I" are both); "my sister" is `my sister`, and "my sister Jo"
or "Jo, my sister," is Jo (the naming itself is a fact, read by `role_names`); a capitalised name is that
person; "she"/"he" are the person the sentence named before. Objects are the noun phrase of a token without
its relative clauses and prepositions ("a little terraced house near the harbour" -> "little terraced
house"), split at "and"/"or" ("hiking and jazz" -> two).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from memory.facts import extraction_rules as R
from memory.facts.extraction_objects import trim

if TYPE_CHECKING:
    from spacy.tokens import Token

USER = "user"
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})
_SELF = frozenset({"i", "we", "me", "us", "myself", "ourselves"})
_THIRD = frozenset({"he", "she", "they"})
_NP_LEFT = frozenset({"compound", "amod", "nmod", "nummod", "quantmod", "poss", "det", "npadvmod", "advmod"})
_NP_RIGHT = frozenset({"compound", "flat", "nummod"})
_CHATTER = frozenset("tbh lol haha btw imo imho ngl honestly though tho".split())
_DROP_LEAD = frozenset("a an the my our your his her their this that these those some any".split())
# Words that praise or size a thing rather than say what it is ("a brilliant statistician").
EVALUATIVE = frozenset(
    """brilliant great good amazing awesome wonderful lovely fantastic excellent terrible awful bad pretty
    little big huge tiny proud happy total complete real proper decent nice cute sweet old new young
    massive incredible fabulous fine so very really truly just quite super""".split()
)
ROLE_NOUNS = (
    R.ROLE_WORDS
    | set(R.ROLES_PL.replace("\\s+", " ").split("|"))
    | {"half-brother", "half-sister", "stepsister", "stepbrother", "supervisor", "ex"}
)
PET_NOUNS = R.PET_WORDS | R.ANIMAL_KINDS
_MOD = frozenset("older younger big little twin baby elder eldest oldest youngest step".split())


class Who(NamedTuple):
    """A resolved subject; `kin` when the user introduced them ("I", "my sister", "my sister Jo"), not a
    name alone ("Sam"), of whom only home, work, studies and occupation are recorded."""

    text: str
    kin: bool


def is_role(token: Token) -> bool:
    """A person or pet noun that can be "my <role>" ("sister", "dog", "labrador")."""
    return token.lower_ in ROLE_NOUNS or token.lower_ in PET_NOUNS or token.lemma_.lower() in PET_NOUNS


def possessed(token: Token) -> bool:
    """ "my dog", "our kids": the user's own."""
    return any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in token.children)


def role_text(token: Token) -> str:
    """ "my sister" for sister, "my half-brother" for "half-brother", "my wife" for "missus"."""
    words = [c.lower_ for c in token.lefts if c.dep_ in ("compound", "amod") and c.lower_ not in _MOD]
    role = " ".join([*words[-1:], token.lower_]) if words and words[-1] in ("step", "half") else token.lower_
    role = role.replace("half ", "half-")
    return "my " + R.ROLE_ALIASES.get(role, role)


def name_of(token: Token) -> str | None:
    """The capitalised name beside a role noun: "my sister Jo", "my dog, Rex,", "Jo, my sister"."""
    before = name_before(token)
    if before is not None:
        return full_name(before)
    for child in token.children:
        if (
            child.dep_ in ("appos", "compound", "npadvmod")
            and child.i > token.i
            and is_name(child, beside_role=True)
        ):
            return full_name(child)
    if token.dep_ == "appos" and is_name(token.head, beside_role=True):
        return full_name(token.head)
    return None


def name_before(role: Token) -> Token | None:
    """ "Milo, my labrador, is ...": the name that opens the sentence before a comma or dash and the role,
    however the parse attached it."""
    left = role.left_edge.i
    sent = role.sent.start
    if left - 2 < sent or role.doc[left - 1].text not in (",", "—", "–", "-"):
        return None
    name = role.doc[left - 2]
    opens = name.i == sent or not role.doc[name.i - 1].is_alpha
    return name if opens and is_role(role) and possessed(role) and is_name(name, beside_role=True) else None


def is_name(token: Token, *, beside_role: bool = False) -> bool:
    """A capitalised proper noun that is not a date; beside a role noun ("my sister Nadia") spaCy's
    guess that it is a place or a company does not count."""
    odd = ("DATE", "TIME") if beside_role else ("DATE", "TIME", "GPE", "ORG", "NORP")
    return (
        token.pos_ == "PROPN"
        and token.text[:1].isupper()
        and token.lower_ not in R.NOT_NAMES | R.COMMON
        and token.ent_type_ not in odd
    )


def role_before(name: Token) -> Token | None:
    """ "my parrot Kiwi" parsed as the name with "my" and "parrot" hanging on it: the role token."""
    if not any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in name.children):
        return None
    return next((c for c in name.lefts if c.dep_ in ("compound", "amod", "nmod") and is_role(c)), None)


def full_name(token: Token) -> str:
    """ "Jo" or "Mary Ann": the name token with its compound/flat name parts."""
    parts = [c for c in token.lefts if c.dep_ == "compound" and c.pos_ == "PROPN"] + [token]
    parts += [c for c in token.rights if c.dep_ in ("flat", "compound") and c.pos_ == "PROPN"]
    return " ".join(t.text for t in sorted(parts, key=lambda t: t.i))


def subjects(verb: Token) -> list[Who]:
    """Who the clause of `verb` is about; empty when it is about no one the user knows."""
    subject = subject_token(verb)
    if subject is None:
        return [Who(USER, True)] if _dropped_subject(verb) else []
    found = [who] if (who := resolve(subject)) else []
    for conj in subject.children:  # "my wife and I", "Tom and Lily"
        if conj.dep_ == "conj" and (who := resolve(conj)) and who not in found:
            found.append(who)
    return found


def spliced(token: Token) -> bool:
    """ "gave up the cello, I just couldn't keep up": a clause the parse hangs on the next one as an adverbial
    clause, with no "if"/"after"/"because" to subordinate it, is a clause of its own, with its own stance."""
    return token.dep_ == "advcl" and not any(c.dep_ == "mark" for c in token.children)


def _dropped_subject(verb: Token) -> bool:
    """Chat drops the subject ("moved to Denver last month", "got laid off from Meta", "used to love
    running", "left Deloitte and joined Fernwood"): the user, when the clause opens the sentence in the past
    or progressive (a bare "Move to Denver" is an imperative)."""
    head = verb
    while head.dep_ in ("conj", "xcomp") and head.head is not head:
        head = head.head
    first = head.sent[0]
    lead = ("advmod", "intj", "cc", "punct", "aux", "auxpass", "neg", "prt")
    opens = head.i == first.i or all(t.dep_ in lead for t in head.doc[first.i : head.i])
    past = head.tag_ in ("VBD", "VBN", "VBG") or head.lower_ == "born"
    return opens and past and (head.dep_ == "ROOT" or spliced(head))


def subject_token(verb: Token) -> Token | None:
    """The subject of `verb`, inherited through "and" and control ("I live in X and work at Y")."""
    current: Token | None = verb
    for _ in range(6):
        if current is None:
            return None
        found = next((c for c in current.children if c.dep_ in SUBJECT_DEPS), None)
        if found is not None:
            return found
        if current.dep_ in ("conj", "xcomp", "acomp", "advcl") and current.head is not current:
            current = current.head
        else:
            return None
    return None


def resolve(token: Token) -> Who | None:
    """ "I" -> user; "my sister" -> "my sister" (or her name when given); "Jo" -> "Jo"."""
    low = token.lower_
    if low in _SELF:
        return Who(USER, True)
    if low in ("who", "that") and token.head.dep_ == "relcl" and token.head.head is not token:
        return _relative(token.head.head)
    if low in _THIRD:
        return antecedent(token)
    if is_role(token) and possessed(token):
        after = token.nbor(1) if token.i + 1 < len(token.doc) else None
        if (
            after is not None
            and after.dep_ == token.dep_
            and after.head == token.head
            and is_name(after, beside_role=True)
        ):
            return Who(full_name(after), True)  # "my best friend Sam lives ..." parsed as two subjects
        return Who(name_of(token) or role_text(token), True)
    if token.dep_ in ("nsubj", "nsubjpass") and any(
        c.dep_ == "appos" and is_role(c) and possessed(c) for c in token.children
    ):
        return Who(full_name(token), True)  # "Jo, my sister, moved to Lisbon"
    if is_name(token, beside_role=True) and role_before(token) is not None:
        return Who(full_name(token), True)
    return Who(full_name(token), False) if is_name(token) else None


def _relative(noun: Token) -> Who | None:
    """ "a half-brother named Luis who lives in Madrid": who is Luis; "my sister, who ..." is my sister."""
    called = next((c for c in noun.children if c.dep_ == "acl" and c.lemma_ in ("name", "call")), None)
    given = next((c for c in called.children if c.dep_ in ("oprd", "attr", "dobj")), None) if called else None
    if given is not None and is_role(noun) and is_name(given, beside_role=True):
        return Who(full_name(given), True)
    if noun.pos_ in ("NOUN", "PROPN"):
        return resolve(noun)
    return None


def antecedent(pronoun: Token) -> Who | None:
    """ "my wife Ana is a doctor and she loves tennis": she is Ana (the last person the sentence named)."""
    for token in reversed(list(pronoun.sent)[: pronoun.i - pronoun.sent.start]):
        if token.dep_ in SUBJECT_DEPS and token.lower_ not in _SELF | _THIRD:
            return resolve(token)
    return None


def phrase(token: Token, *, located: bool = False) -> str:
    """The noun phrase of `token` without clauses and prepositions, article and filler trimmed; `located`
    keeps "in <Place>" ("a cabin in Vermont")."""
    left = token.i
    for child in token.lefts:
        if child.dep_ in _NP_LEFT or (child.dep_ == "punct" and child.text == "-"):
            left = min(left, child.left_edge.i)
    right = token.i
    for child in token.rights:
        if child.lower_ in _CHATTER:
            continue
        if child.dep_ in _NP_RIGHT or (child.dep_ == "punct" and child.text == "-" and not child.whitespace_):
            right = max(right, child.right_edge.i)
        elif (
            child.dep_ == "prep"
            and (child.lower_ == "of" or located and child.lower_ == "in")
            and _proper(child)
        ):
            right = max(right, child.right_edge.i)  # "University of Michigan", "Bank of America"
    while right > token.i and right + 1 < len(token.doc) and token.doc[right].text == "-":
        right += 1  # "sci-fi" split at the hyphen
    words = list(token.doc[left : right + 1])
    while words and (words[0].lower_ in _DROP_LEAD or words[0].dep_ in ("det", "poss")):
        words.pop(0)
    text = "".join(t.text_with_ws for t in words).strip()
    return trim(re.sub(r"\s*-\s*", "-", text)) if "-" in text else trim(text)


def _proper(prep: Token) -> bool:
    if prep.lower_ == "in":
        return any(c.dep_ == "pobj" for c in prep.children)  # "a house in the suburbs", "a cabin in Vermont"
    return any(c.pos_ == "PROPN" for c in prep.children) and (
        prep.head.text[:1].isupper() or prep.lower_ == "in"
    )


def things(token: Token, *, plain: bool = False, located: bool = False) -> list[str]:
    """The phrase of `token` and of each token coordinated with it; `plain` drops praise ("great")."""
    found = []
    for item in coordinated(token):
        text = phrase(item, located=located)
        if plain:
            words = text.split()
            while len(words) > 1 and words[0].lower() in EVALUATIVE:
                words.pop(0)
            text = " ".join(words)
        if text and text.lower() not in R.PRONOUN_OBJECTS | R.COMMON and len(text.split()) <= 6:
            found.append(text)
    return found


def coordinated(token: Token) -> Iterator[Token]:
    """`token` and the tokens joined to it by "and"/"or" (not across a new clause's verb)."""
    yield token
    for child in token.children:
        joined = any(c.dep_ == "cc" for c in (*token.children, *child.children))  # "and"/"or", not a comma
        if child.dep_ == "conj" and joined and child.pos_ in ("NOUN", "PROPN", "ADJ", "VERB", "NUM"):
            if child.pos_ == "VERB" and any(c.dep_ in SUBJECT_DEPS for c in child.children):
                continue
            yield from coordinated(child)
