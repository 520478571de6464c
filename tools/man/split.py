#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make the man pages' reStructuredText from Documentation/tools.rst, the
one source of the tool's documentation: pt-trace.rst (the introduction
and every section before the first 'pt-trace CMD' one) and
pt-trace-CMD.rst (that section), each with the title, NAME line, version
and section rst2man wants.  The NAME lines are the command list of
'pt-trace --help', read from standard input.

Usage: pt-trace --help | split.py TOOLS.rst VERSION OUTDIR
"""
import os
import re
import sys

src, version, outdir = sys.argv[1:4]
lines = open(src, encoding="utf-8").read().split("\n")

# 'pt-trace --help': "  record   trace CPUs through ..." per command.
what = {}
for line in sys.stdin:
    m = re.match(r"^  ([a-z]+) +(\S.*)$", line)
    if m and not m.group(1).startswith("pt"):
        what[m.group(1)] = m.group(2)


def is_rule(line, ch, title):
    return (title.strip() and len(line) >= len(title.rstrip())
            and re.fullmatch(re.escape(ch) + "+", line) is not None)


# Split at level-1 sections (a title underlined with '=', no overline).
intro, sections, cur = [], [], None
i = 0
while i < len(lines):
    line = lines[i]
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    prev = lines[i - 1] if i > 0 else ""
    if is_rule(nxt, "=", line) and not is_rule(prev, "=", line):
        cur = [line, []]
        sections.append(cur)
        i += 2
        continue
    (cur[1] if cur else intro).append(line)
    i += 1

# The document's own title (overlined) and SPDX comment are not body.
body_intro = []
skip = True
for line in intro:
    if skip and (line.startswith("..") or line.startswith("=")
                 or not line.strip() or line.startswith("pt-trace:")):
        continue
    skip = False
    body_intro.append(line)


def header(name, desc):
    bar = "=" * len(name)
    sub = "-" * len(desc)
    return [bar, name, bar, sub, desc, sub, "",
            ":Manual section: 1",
            ":Manual group: pt_trace",
            ":Version: pt-trace " + version, ""]


def section(title, body):
    return [title, "=" * len(title), ""] + body + [""]


def write(name, text):
    with open(os.path.join(outdir, name + ".rst"), "w",
              encoding="utf-8") as f:
        f.write("\n".join(text).rstrip() + "\n")


cmds = [(t.split()[1], b) for t, b in sections if re.fullmatch(r"pt-trace [a-z]+", t)]
general = [(t, b) for t, b in sections if not re.fullmatch(r"pt-trace [a-z]+", t)]
see_also = ", ".join("**pt-trace-%s**\\ (1)" % c for c, _ in cmds)

page = header("pt-trace", "record, dump and decode Intel Processor Trace")
page += section("SYNOPSIS", ["**pt-trace** *command* [*options*] [*args*]", "",
                             "**pt-trace --version**"])
page += section("DESCRIPTION", body_intro)
page += section("COMMANDS", sum([["**%s**" % c, "    %s (**pt-trace-%s**\\ (1))" %
                                  (what.get(c, ""), c), ""] for c, _ in cmds], []))
for t, b in general:
    page += section(t.upper(), b)
page += section("SEE ALSO", [see_also + ", the pt_trace driver's "
                             "Documentation/abi.rst."])
write("pt-trace", page)

for c, b in cmds:
    page = header("pt-trace-" + c, what.get(c, "pt-trace " + c))
    page += section("DESCRIPTION", b)
    page += section("SEE ALSO", ["**pt-trace**\\ (1)"])
    write("pt-trace-" + c, page)
