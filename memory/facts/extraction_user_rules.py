"""The user rules of the fact extractor: an ordered table of clause patterns about the user themself.

First match wins. Each block of the table is "predicate; category; kind[; confidence]" followed by the
pattern on indented lines (verbose regex: layout whitespace is ignored, so spaces are written \\s). The
`kind` names the reader in `extraction_objects.READERS` that turns the matched object into facts.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from memory.facts.extraction_rules import AGE_WORDS, alternation


class Rule(NamedTuple):
    """One user-clause pattern: the object is group `o` (or `o2`, `o3`), read as `kind`."""

    pattern: re.Pattern[str]
    predicate: str
    category: str
    kind: str  # which reader turns the object into facts (extraction_objects.READERS)
    confidence: float = 0.9


_GOAL_VERBS = alternation(
    "want|wanna|hope|'d like|would like|'d love|would love|'m hoping|'m trying|'m aiming|aim|"
    "'ve always wanted|have always wanted|'m determined|dream|really want|'m going to try|'m working"
)
# The user rules, first match wins. Each block: "predicate; category; kind[; confidence]", then the
# pattern on indented lines (verbose regex: layout whitespace is ignored, so spaces are written \s).
_USER_RULE_TABLE = r"""
named; identity; name
    ^my\s+name(?:'s|\s+is)\s+(?P<o>.+)$
    | ^I(?:'m\s+(?:called|named|known\s+as)|\s+go\s+by)\s+(?P<o3>.+)$
age; identity; age
    ^I'm\s+(?P<o>\d{1,3}|AGE_WORDS)(?:(?:\s*(?:years?|yrs?)\s*old|\s*y/?o)\b.*|\s+and\s.*)?$
    | ^my\s+age\s+is\s+(?P<o3>\d{1,3})\b
allergic to; identity; things
    ^I'm\s+(?:(?:severely|very|quite|deathly)\s+)?allergic\s+to\s+(?P<o>.+)$
speaks; identity; things
    ^I(?:\s+speak|'m\s+fluent\s+in)\s+(?P<o>.+)$
birthday; identity; text
    ^(?:my\s+birthday(?:'s|\s+is)(?:\s+on)?|I\s+was\s+born\s+on)\s+(?P<o>.+)$
lives in; location; place
    ^I(?:'ve|\s+have)?(?:\s+been)?\s+(?:live|lives|lived|living|reside|resided|residing)
      \s+(?:in|at|(?:just\s+)?(?:outside(?:\s+of)?|near))\s+(?P<o>.+)$
    | ^I'm\s+(?:living|residing|based|located|settled)
      \s+(?:in|(?:just\s+)?(?:outside(?:\s+of)?|near))\s+(?P<o2>.+)$
    | ^I(?:'m|'ve\s+been|\s+have\s+been)\s+in\s+(?P<o3>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)*)
      \s+(?:(?:for\s+)?(?:(?:about|almost|over|nearly|the\s+(?:last|past))\s+)?\S+\s+(?:years?|decades?)|since)\b.*$
    | ^(?:now\s+)?in\s+(?P<o4>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+){0,2})$
is from; location; place
    ^(?:I'm|I\s+come|I\s+came)\s+(?:originally\s+)?from\s+(?P<o>.+)$
    | ^my\s+(?:hometown|home\s+town)\s+is\s+(?P<o3>.+)$
works at; work; org
    ^I(?:'ve|'m|\s+have)?(?:\s+been)?\s+(?:work|worked|working)
      (?:\s+(?:remotely|full[- ]time|part[- ]time|freelance|there))?\s+(?:at|for)\s+(?P<o>.+)$
    | ^I'm\s+employed\s+(?:at|by)\s+(?P<o2>.+)$
    | ^I\s+(?:got\s+hired|was\s+hired|started)\s+(?:by|at)\s+(?P<o5>.+)$
    | ^I\s+(?:started|got|landed|accepted|took|have)\s+(?:a\s+|my\s+)?(?:new\s+)?job\s+(?:at|with)\s+
      (?P<o3>.+)$
works on; work; project
    ^I(?:'m|\s+am)?\s+(?:work|working)\s+on\s+(?P<o>.+)$
studies at; work; org
    ^I(?:'m)?\s+(?:study|studying|studied)\s+(?:[\w -]+?\s+)?at\s+(?P<o>.+)$
    | ^I\s+(?:go\s+to|attend)\s+(?:school|college|university|uni)\s+at\s+(?P<o2>.+)$
    | ^I'm\s+(?:doing|pursuing|finishing|starting)\s+(?:my\s+|a\s+)?(?:phd|doctorate|masters?|master's|mba|
      degree|bachelor's|undergrad)(?:\s+[\w-]+){0,3}?\s+at\s+(?P<o3>.+)$
is a; work; isa
    ^I\s+work\s+as\s+(?P<o>(?:a|an)\s+.+)$
    | ^I\s+(?:just\s+)?(?:got|was|have\s+been|'ve\s+been)\s+promoted\s+to\s+(?P<o2>.+)$
job; work; job
    ^my\s+(?:job|profession|occupation)\s+is\s+(?P<o>.+)$
likes; preferences; things
    ^I'm\s+(?:so\s+|very\s+|really\s+|(?:much\s+)?more\s+)?into\s+(?P<o2>.+)$
    | ^I(?:'ve|\s+have)\s+(?:gotten|got|been\s+getting)\s+(?:really\s+|so\s+|very\s+)?into\s+(?P<o4>.+)$
    | ^I'm\s+(?:(?:obsessed|in\s+love)\s+with|passionate\s+about|crazy\s+about|a\s+sucker\s+for)\s+(?P<o3>.+)$
is a; identity; isa
    ^I'm\s+(?P<o>(?:a|an)\s+.+)$
named; identity; selfname; 0.8
    ^I'm\s+(?P<o>[A-Za-z][\w'-]*(?:\s+[A-Z][\w'-]*)?)$
likes; preferences; likes
    ^I\s+(?:love|like|enjoy|adore|dig|fancy)\s+(?P<o>.+)$
dislikes; preferences; likes
    ^I\s+(?:hate|dislike|detest|loathe|despise|can't\s+stand|cannot\s+stand|can\s+not\s+stand
      |(?:don't|do\s+not|never|didn't)\s+(?:really\s+)?(?:like|liked|love|enjoy|enjoyed))\s+(?P<o>.+)$
    | ^(?P<o3>.+?)\s+(?:is|are)\s+(?:just\s+|really\s+|honestly\s+)?not\s+(?:really\s+)?my\s+thing$
likes; preferences; things
    ^my\s+(?:all[- ]time\s+|absolute\s+)?favou?rite\s+[\w -]{1,30}?\s+(?:is|are)\s+(?P<o>.+)$
    | ^(?P<o2>.+?)\s+(?:is|are)\s+my\s+(?:all[- ]time\s+|absolute\s+)?favou?rite\b.*$
wants to; goals; vp
    ^(?:my\s+)?(?:goal|resolution|aim|plan|dream)s?(?:\s+(?:for|this|next)\s+[\w ]{1,20}?)?:\s+(?P<o>.+)$
plans to; goals; vp
    ^I(?:'m|\s+am)?\s+(?:plan|planning|intend|intending)\s+to\s+(?P<o>.+)$
wants to; goals; vp
    ^I(?:\s+really)?(?:\s+|(?='))(?:GOAL_VERBS)\s+to\s+(?P<o>.+)$
    | ^one\s+of\s+my\s+(?:[\w'-]+\s+)?(?:goals|dreams|plans|aims|ambitions|resolutions)
      (?:\s+(?:for|this|next)\s+[\w ]+?)?\s+is\s+to\s+(?P<o3>.+)$
    | ^I'm\s+saving\s+(?:up\s+)?(?:money\s+)?to\s+(?P<o4>.+)$
wants to; goals; learning; 0.8
    ^I'm\s+(?P<o>learning\s+(?!to\b|all\b|the\b|how\b|about\b|a\s+lot\b).+)$
wants; goals; things
    ^I'm\s+saving\s+(?:up\s+)?(?:money\s+)?for\s+(?P<o>.+)$
owns; possessions; things
    ^my\s+(?:car|laptop|phone|bike|computer|truck|motorcycle|motorbike|van|camera)\s+is\s+(?:a|an)\s+(?P<o>.+)$
owns; possessions; possess
    ^I\s+(?:own|have|bought|drive|ride|purchased)\s+(?P<o>.+)$
    | ^I\s+(?:adopted|rescued)\s+(?P<o5>(?:a|an)\s+.+)$
    | ^I\s+got\s+(?:myself\s+)?(?P<o2>(?:a|an)\s+.+)$
    | ^I\s+keep\s+(?P<o3>(?:a|an|two|three|four)\s+.+)$
"""


def _parse_rules(table: str) -> tuple[Rule, ...]:
    rules: list[Rule] = []
    for block in re.split(r"\n(?=\S)", table.strip()):
        header, *body = block.splitlines()
        predicate, category, kind, *confidence = (part.strip() for part in header.split(";"))
        source = "".join(body).replace("GOAL_VERBS", _GOAL_VERBS).replace("AGE_WORDS", AGE_WORDS)
        pattern = re.compile(source, re.I | re.X)
        rules.append(Rule(pattern, predicate, category, kind, float(confidence[0]) if confidence else 0.9))
    return tuple(rules)


USER_RULES = _parse_rules(_USER_RULE_TABLE)
