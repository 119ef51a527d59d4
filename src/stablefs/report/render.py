"""A tiny document model rendered to Markdown and to self-contained HTML.

The report is built once as a :class:`Document` (headings, paragraphs, lists, tables,
figures, code blocks) and then rendered twice, so ``report.md`` and ``report.html`` always
carry the same content. All text in the model is *plain text*: the renderers escape it
(HTML special characters, Markdown punctuation), so user-supplied names such as
``a<b>&"c"|d`` cannot break either file.

The HTML output has no external resources: CSS is inline and figures are embedded as
``data:image/png;base64`` URIs. The Markdown output refers to the PNG files by their
relative paths (``figures/*.png``).
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from stablefs._runtime.escape import printable

__all__ = [
    "BulletList",
    "Code",
    "CodeBlock",
    "Details",
    "Document",
    "Figure",
    "Heading",
    "Paragraph",
    "Strong",
    "Table",
    "html_escape",
    "md_escape",
    "to_html",
    "to_markdown",
]


# --------------------------------------------------------------------------- model


@dataclass(frozen=True)
class Strong:
    """Bold inline text."""

    text: str


@dataclass(frozen=True)
class Code:
    """Inline code (monospace) text."""

    text: str


#: Inline content: plain text, bold, code, or a sequence of those.
Inline = str | Strong | Code | Sequence["str | Strong | Code"]


@dataclass
class Heading:
    """A section heading; ``level`` 1–3. ``anchor`` is the HTML id (derived when None)."""

    level: int
    text: str
    anchor: str | None = None


@dataclass
class Paragraph:
    """A paragraph of inline content."""

    content: Inline
    css_class: str | None = None


@dataclass
class BulletList:
    """An unordered list; each item is inline content."""

    items: list[Inline]
    css_class: str | None = None


@dataclass
class CodeBlock:
    """Preformatted text, e.g. the command line that reruns the experiment."""

    text: str


@dataclass
class Table:
    """A table of inline cells.

    ``align`` holds one of ``"l"``/``"r"`` per column (default: first column left, the
    others right, as suits a method × k table of numbers).
    """

    header: list[str]
    rows: list[list[Inline]]
    align: list[str] | None = None

    def alignment(self) -> list[str]:
        if self.align is not None:
            return list(self.align)
        return ["l"] + ["r"] * (len(self.header) - 1)


@dataclass
class Figure:
    """A PNG figure: ``src`` is its path relative to the report, ``png`` its bytes."""

    src: str
    png: bytes
    caption: str
    alt: str = ""


@dataclass
class Details:
    """A collapsible group of blocks (HTML ``<details>``; in Markdown the summary line in
    bold followed by the blocks, always shown)."""

    summary: str
    blocks: list = field(default_factory=list)
    open: bool = False


@dataclass
class Document:
    """A title and a list of blocks."""

    title: str
    blocks: list = field(default_factory=list)

    def add(self, *blocks) -> Document:
        self.blocks.extend(blocks)
        return self


# ------------------------------------------------------------------------ escaping

_MD_ALWAYS = set("\\`*<>|#~$")
_MD_ENTITY = re.compile(r"&(#?[0-9A-Za-z]+;)")


def md_escape(text: str) -> str:
    """Escape ``text`` for Markdown (CommonMark / GitHub flavour), keeping it readable.

    Backslash-escapes ``\\ ` * < > | # ~ $`` everywhere (``$`` starts math on GitHub);
    ``]`` when followed by ``(``, ``[`` or ``:`` (the only places a link can form, since
    the report defines no link references); ``&`` when it would start an entity such as
    ``&lt;``; and ``_`` unless it sits between two letters or digits (``AFFX_5_at`` stays
    as is: CommonMark never reads intra-word ``_`` as emphasis). Line breaks become
    spaces, so a name cannot break a table row.
    """
    text = printable(" ".join(str(text).splitlines()))  # ESC, bidi overrides: visible
    out = []
    n = len(text)
    for i, ch in enumerate(text):
        right = text[i + 1] if i + 1 < n else ""
        if ch in _MD_ALWAYS:
            out.append("\\" + ch)
        elif ch == "_":
            left = text[i - 1] if i > 0 else ""
            out.append("_" if left.isalnum() and right.isalnum() else "\\_")
        elif ch == "]" and right in ("(", "[", ":"):
            out.append("\\]")
        elif ch == "&" and _MD_ENTITY.match(text, i):
            out.append("\\&")
        else:
            out.append(ch)
    return "".join(out)


def html_escape(text: str) -> str:
    """Escape ``& < > " '`` for HTML text and attribute values, and show control characters
    (an ESC sequence, a right-to-left override that would reorder what the reader sees) as
    visible escapes (:func:`stablefs._runtime.escape.printable`)."""
    return html.escape(printable(text, keep_tabs=True), quote=True)


def _slug(text: str, used: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
    slug, i = base, 2
    while slug in used:
        slug, i = f"{base}-{i}", i + 1
    used.add(slug)
    return slug


def _parts(content: Inline) -> list:
    if isinstance(content, str | Strong | Code):
        return [content]
    return list(content)


def _md_inline(content: Inline) -> str:
    out = []
    for part in _parts(content):
        if isinstance(part, Strong):
            out.append(f"**{md_escape(part.text)}**" if part.text else "")
        elif isinstance(part, Code):
            out.append(_md_code_span(part.text))
        else:
            out.append(md_escape(part))
    return "".join(out)


def _md_code_span(text: str) -> str:
    text = " ".join(str(text).splitlines())
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _html_inline(content: Inline) -> str:
    out = []
    for part in _parts(content):
        if isinstance(part, Strong):
            out.append(f"<strong>{html_escape(part.text)}</strong>")
        elif isinstance(part, Code):
            out.append(f"<code>{html_escape(part.text)}</code>")
        else:
            out.append(html_escape(part))
    return "".join(out)


# ------------------------------------------------------------------------ markdown


def to_markdown(doc: Document) -> str:
    """Render ``doc`` as GitHub-flavoured Markdown.

    Parameters
    ----------
    doc : Document
        The report.

    Returns
    -------
    str
        Markdown text ending in a newline. Figures are ``![alt](src)`` image links to the
        PNG files, followed by their caption in italics.
    """
    chunks = [f"# {md_escape(doc.title)}"]
    chunks.extend(_md_blocks(doc.blocks))
    return "\n\n".join(chunks) + "\n"


def _md_blocks(blocks) -> list[str]:
    chunks: list[str] = []
    for block in blocks:
        if isinstance(block, Details):
            chunks.append(f"**{md_escape(block.summary)}**")
            chunks.extend(_md_blocks(block.blocks))
        elif isinstance(block, Heading):
            level = min(max(block.level, 2), 6)
            chunks.append(f"{'#' * level} {md_escape(block.text)}")
        elif isinstance(block, Paragraph):
            chunks.append(_md_inline(block.content))
        elif isinstance(block, BulletList):
            chunks.append("\n".join(f"- {_md_inline(item)}" for item in block.items))
        elif isinstance(block, CodeBlock):
            longest = max((len(m) for m in re.findall(r"`{3,}", block.text)), default=2)
            fence = "`" * (longest + 1)
            chunks.append(f"{fence}\n{block.text.rstrip()}\n{fence}")
        elif isinstance(block, Table):
            chunks.append(_md_table(block))
        elif isinstance(block, Figure):
            alt = md_escape(block.alt or block.caption)
            chunks.append(f"![{alt}]({block.src})\n\n*{md_escape(block.caption)}*")
        else:  # pragma: no cover - programming error
            raise TypeError(f"unknown block {block!r}")
    return chunks


def _md_table(table: Table) -> str:
    align = table.alignment()
    header = "| " + " | ".join(md_escape(h) for h in table.header) + " |"
    rule = "|" + "|".join("---:" if a == "r" else ":---" for a in align) + "|"
    rows = ["| " + " | ".join(_md_inline(c) for c in row) + " |" for row in table.rows]
    return "\n".join([header, rule, *rows])


# ---------------------------------------------------------------------------- html

_CSS = """
:root { --fg:#1f2328; --muted:#57606a; --border:#d0d7de; --alt:#f6f8fa; --accent:#0a58a8; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: var(--fg); background: #fff;
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
        "Noto Sans", sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 2rem 1.5rem 4rem; }
h1 { font-size: 1.85rem; line-height: 1.25; margin: 0 0 1rem; }
h2 { font-size: 1.4rem; margin: 2.6rem 0 .8rem; padding-bottom: .3rem;
  border-bottom: 1px solid var(--border); }
h3 { font-size: 1.08rem; margin: 1.8rem 0 .5rem; }
p, ul { margin: .5rem 0 1rem; }
ul { padding-left: 1.4rem; }
li { margin: .25rem 0; }
ul.meta { list-style: none; padding: 0; }
ul.meta li { margin: .15rem 0; }
ul.summary { background: #f3f8fe; border-left: 4px solid var(--accent);
  padding: .7rem 1rem .7rem 2rem; border-radius: 0 6px 6px 0; }
nav.toc { font-size: .92rem; color: var(--muted); margin: 0 0 1.5rem; display: flex;
  flex-wrap: wrap; gap: .15rem 1rem; }
nav.toc a { color: var(--accent); text-decoration: none; white-space: nowrap; }
nav.toc a:hover { text-decoration: underline; }
p.note { color: var(--muted); font-size: .92rem; }
code, pre { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas,
  "Liberation Mono", monospace; font-size: .88em; }
code { background: var(--alt); padding: .1em .3em; border-radius: 4px; }
pre { background: var(--alt); border: 1px solid var(--border); border-radius: 6px;
  padding: .75rem 1rem; white-space: pre-wrap; overflow-wrap: anywhere; }
pre code { background: none; padding: 0; }
.table-wrap { overflow-x: auto; margin: .5rem 0 1.3rem; }
table { border-collapse: collapse; font-size: .9rem; font-variant-numeric: tabular-nums; }
th, td { padding: .38rem .5rem; border-bottom: 1px solid var(--border);
  text-align: left; vertical-align: top; }
thead th { background: var(--alt); border-bottom: 2px solid var(--border);
  font-weight: 600; white-space: nowrap; }
tbody tr:nth-child(even) { background: #fbfcfd; }
tbody tr:hover { background: #f0f4f9; }
th.r, td.r { text-align: right; white-space: nowrap; }
td.l { overflow-wrap: anywhere; }
td.l:first-child { overflow-wrap: normal; }  /* names and ids break at hyphens only */
figure { margin: 1.2rem 0 2.2rem; }
figure img { display: block; max-width: 100%; height: auto; border: 1px solid var(--border);
  border-radius: 6px; }
figcaption { color: var(--muted); font-size: .92rem; margin-top: .45rem; max-width: 80ch; }
details { margin: .4rem 0 .8rem; }
details > summary { cursor: pointer; font-weight: 600; color: var(--accent); }
footer { color: var(--muted); font-size: .85rem; margin-top: 3rem;
  border-top: 1px solid var(--border); padding-top: .8rem; }
@media print {
  main { max-width: none; padding: 0; }
  nav.toc { display: none; }
  figure, table { break-inside: avoid; }
  tbody tr:hover { background: none; }
}
""".strip()


def to_html(doc: Document, *, footer: str | None = None) -> str:
    """Render ``doc`` as one self-contained HTML page.

    Parameters
    ----------
    doc : Document
        The report.
    footer : str, optional
        Plain-text footer line.

    Returns
    -------
    str
        An HTML5 document with inline CSS, figures embedded as base64 PNG data URIs, and
        no reference to any external resource.
    """
    used: set[str] = set()
    toc: list[tuple[str, str]] = []
    body = _html_blocks(doc.blocks, used, toc)
    nav = ""
    if len(toc) > 1:
        links = "".join(f'<a href="#{a}">{html_escape(t)}</a>' for a, t in toc)
        nav = f'<nav class="toc">{links}</nav>'
    foot = f"<footer>{html_escape(footer)}</footer>" if footer else ""
    title = html_escape(doc.title)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>\n{_CSS}\n</style>\n</head>\n<body>\n<main>\n"
        f"<h1>{title}</h1>\n{nav}\n" + "\n".join(body) + f"\n{foot}\n</main>\n</body>\n</html>\n"
    )


def _html_blocks(blocks, used: set[str], toc: list[tuple[str, str]]) -> list[str]:
    body: list[str] = []
    for block in blocks:
        if isinstance(block, Details):
            inner = "\n".join(_html_blocks(block.blocks, used, toc))
            op = " open" if block.open else ""
            body.append(f"<details{op}><summary>{html_escape(block.summary)}</summary>\n"
                        f"{inner}\n</details>")
        elif isinstance(block, Heading):
            level = min(max(block.level, 2), 6)
            anchor = _slug(block.anchor or block.text, used)
            if level == 2:
                toc.append((anchor, block.text))
            body.append(f'<h{level} id="{anchor}">{html_escape(block.text)}</h{level}>')
        elif isinstance(block, Paragraph):
            cls = f' class="{html_escape(block.css_class)}"' if block.css_class else ""
            body.append(f"<p{cls}>{_html_inline(block.content)}</p>")
        elif isinstance(block, BulletList):
            cls = f' class="{html_escape(block.css_class)}"' if block.css_class else ""
            items = "".join(f"<li>{_html_inline(i)}</li>" for i in block.items)
            body.append(f"<ul{cls}>{items}</ul>")
        elif isinstance(block, CodeBlock):
            body.append(f"<pre><code>{html_escape(block.text.rstrip())}</code></pre>")
        elif isinstance(block, Table):
            body.append(_html_table(block))
        elif isinstance(block, Figure):
            data = base64.b64encode(block.png).decode("ascii")
            alt = html_escape(block.alt or block.caption)
            body.append(
                f'<figure><img src="data:image/png;base64,{data}" alt="{alt}">'
                f"<figcaption>{html_escape(block.caption)}</figcaption></figure>"
            )
        else:  # pragma: no cover - programming error
            raise TypeError(f"unknown block {block!r}")
    return body


def _html_table(table: Table) -> str:
    align = table.alignment()
    head = "".join(
        f'<th class="{a}" scope="col">{html_escape(h)}</th>'
        for h, a in zip(table.header, align, strict=False)
    )
    rows = []
    for row in table.rows:
        cells = "".join(
            f'<td class="{a}">{_html_inline(c)}</td>' for c, a in zip(row, align, strict=False)
        )
        rows.append(f"<tr>{cells}</tr>")
    return (
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
