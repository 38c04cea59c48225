"""Reading one Obsidian note: sections by header outside code, wikilinks in every form, tags outside code."""

from __future__ import annotations

from knowledge.obsidian_markdown import parse_note, split_front_matter

NOTE = """---
tags: [Project, planning]
aliases: [PX]
---
Intro with #idea, [[Other Note|an alias]], [[Third#Some heading]], [[Fourth^block1]] and [[Folder/Deep.md]].
Not tags: `#inline` code, http://example.com/#fragment, issue#5, #123, and a %% #comment %%.
Attachments are no notes: ![[photo.png]] [[report.pdf]]; a same-note link neither: [[#Heading]].

# First
Body of first with #Nested/Tag.

```python
# a comment, not a header #fake
x = "[[Fake Link]]"
```

## Second
Text of second.
~~~
#alsofake [[AlsoFake]]
~~~
"""


def test_links_in_every_form_name_the_note() -> None:
    parsed = parse_note(NOTE)
    assert parsed.links == ("Other Note", "Third", "Fourth", "Folder/Deep")


def test_tags_come_from_front_matter_and_text_never_from_code_comments_or_urls() -> None:
    parsed = parse_note(NOTE)
    assert parsed.tags == ("project", "planning", "idea", "nested/tag")
    assert parsed.aliases == ("PX",)


def test_sections_follow_headers_outside_code_with_their_path() -> None:
    sections = parse_note(NOTE).sections
    assert [s.heading for s in sections] == ["", "First", "First › Second"]
    assert "# a comment, not a header #fake" in sections[1].text  # the code block stays in its section
    assert "aliases:" not in sections[0].text  # the front matter is not stored


def test_a_long_section_is_cut_at_paragraphs_then_spaces() -> None:
    paragraph = " ".join(["word"] * 120)  # ~600 characters
    sections = parse_note(f"# Long\n{paragraph}\n\n{paragraph}\n\n{'x' * 2000}", max_chars=700)
    assert len(sections.sections) >= 4
    assert all(len(s.text) <= 700 for s in sections.sections)
    assert {s.heading for s in sections.sections} == {"Long"}


def test_a_note_without_front_matter_or_with_broken_yaml_still_reads() -> None:
    assert split_front_matter("no front matter") == ({}, "no front matter")
    meta, body = split_front_matter("---\ntags: [unclosed\n---\nbody")
    assert meta == {}
    assert body == "body"
    assert parse_note("---\ntags: [a\n---\n#real tag").tags == ("real",)


def test_front_matter_tags_as_a_string_and_hash_prefixed() -> None:
    assert parse_note('---\ntags: "one, #two"\n---\ntext').tags == ("one", "two")
