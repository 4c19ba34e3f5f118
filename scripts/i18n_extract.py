#!/usr/bin/env python3
"""Moves inline texts into the catalogs `crate/i18n/en.json` and `crate/i18n/zh.json`.

Re-runnable: it converts whatever is still inline and leaves the rest alone (an identical
English + Chinese pair reuses its key). After merging a branch that still writes inline texts:

    python3 scripts/i18n_extract.py --dry-run  # list what would move and what it cannot
    python3 scripts/i18n_extract.py            # rewrite the sources and the catalogs
    cargo fmt --all && cargo build             # a key that does not exist does not compile
    cargo test -p election-lab --test catalog  # every key in both languages, every key used
    python3 scripts/i18n_rename.py OLD.KEY NEW.KEY   # if a chosen key reads badly

then convert by hand what it listed (below), and review the diff of both catalogs.

What it converts:
  * `Text::new("English", "中文")` anywhere in the engine crates' and the app's sources  ->  `k::SOME_KEY`
    (outside `#[cfg(test)]`; a private `const N_X: Text` disappears, its uses name the key)
  * `tr(lang, "English", "中文")` in `www/src`                         ->  `tr(lang, k::UI_...)`
  * a protocol's `fn inspect(..) -> Vec<(&'static str, String)>`: labels whose English is the
    text of an `inspect.*` key become that key, and the signature `Vec<(Text, String)>`
Numbered placeholders `{0}`, `{1}`, `{2}` become named ones (`{node}`, `{term}`, ...), named
after the words around them, and `{1:node:nodes}` (a number and its noun) becomes
`{count:node:nodes}`; when the English order of the names differs from the order of the
arguments the code passes, the catalog's `@args` entry records the positional order.

Keys: `<module>.<what>` from the context (`bully.note.start` for `const N_START`,
`bully.kind.election`, `bully.preset.bully-worst-8.title`, `ui.<first words>` for `tr`), and
`common.<...>` for a pair of texts used by several modules. Cases it cannot convert are listed,
to be moved by hand to a key with named arguments (`k::KEY.format(lang, &[&a, &b])`):
`match lang { Lang::Zh => format!(..) }`, a `tr` whose arguments are not literals, an inspector
label no `inspect.*` key has (add `inspect.<label>` to both catalogs and run again). A table of
`("id", "English", "中文")` tuples is not recognised: write its entries as
`("id", Text::new("English", "中文"))` and run again.
"""

import json
import os
import re
import sys
from collections import OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAT = os.path.join(ROOT, "crate", "i18n")
STR = r'"((?:[^"\\]|\\.|\\\n)*)"'
TEXT_NEW = re.compile(r'Text::new\(\s*' + STR + r'\s*,\s*' + STR + r'\s*,?\s*\)', re.S)
TR = re.compile(r'\btr\(\s*([A-Za-z_][A-Za-z0-9_.]*)\s*,\s*' + STR + r'\s*,\s*' + STR + r'\s*,?\s*\)', re.S)
# `{0}`, and `{1:node:nodes}` (the number, then the singular or plural noun).
NUM = re.compile(r'\{(\d)((?::[^{}:]*){2})?\}')


def unescape(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c != '\\':
            out.append(c)
            i += 1
            continue
        n = s[i + 1]
        if n == '\n':
            i += 2
            while i < len(s) and s[i] in ' \t\n':
                i += 1
            continue
        if n == 'u':
            end = s.index('}', i)
            out.append(chr(int(s[i + 3:end], 16)))
            i = end + 1
            continue
        out.append({'n': '\n', 't': '\t', '\\': '\\', '"': '"', "'": "'", '0': '\0', 'r': '\r'}[n])
        i += 2
    return ''.join(out)


def slug(text, words=5):
    w = re.findall(r'[a-z0-9]+', text.lower().replace("'", ""))
    s = '_'.join(w[:words])
    return s[:48].strip('_') or 'text'


def const_name(key):
    return re.sub(r'[^A-Za-z0-9]', '_', key).upper()


NAME_BEFORE = ['ballot', 'term', 'instance', 'epoch', 'phase', 'radius', 'round', 'token', 'value',
               'id', 'hop', 'hops', 'step', 'position', 'priority', 'zxid', 'sid', 'counter', 'zxids']
COUNTED = {'node', 'nodes', 'candidate', 'candidates', 'known', 'vote', 'votes', 'promises', 'acceptances',
           'peers', 'messages', 'member', 'members', 'other', 'others', 'live', 'group', 'groups', 'answers'}
N_BEFORE = {'leader': 'leader', 'candidate': 'candidate', 'from': 'from', 'to': 'to', 'store': 'store',
            'holder': 'holder', 'successor': 'next', 'predecessor': 'prev', 'initiator': 'initiator'}


def name_args(en, zh):
    """{index: name} for the numbered placeholders of a template pair."""
    idx = sorted({int(m.group(1)) for m in NUM.finditer(en + zh)})
    names = {}
    used = set()

    def take(n):
        base, k = n, 2
        while n in used:
            n = f"{base}{k}"
            k += 1
        used.add(n)
        return n

    for i in idx:
        src = en if re.search(r'\{%d[}:]' % i, en) else zh
        m = re.search(r'\{%d((?::[^{}:]*){2})?\}' % i, src)
        before = src[:m.start()]
        after = src[m.end():]
        if m.group(1):
            # A counted noun: `{1:hop:hops}` is a count of hops.
            noun = m.group(1).split(':')[1].split()[-1]
            names[i] = take('hops' if noun == 'hop' else 'count')
            continue
        prev_words = re.findall(r"[A-Za-zδ]+", before[-30:])
        pw = prev_words[-1].lower() if prev_words else ''
        nw = re.match(r"\s*([A-Za-z]+)", after)
        nw = nw.group(1).lower() if nw else ''
        if before.endswith('N'):
            pw2 = re.findall(r"[A-Za-z]+", before[:-1][-30:])
            pw2 = pw2[-1].lower() if pw2 else ''
            if i == 0:
                n = 'node'
            elif pw2 in N_BEFORE:
                n = N_BEFORE[pw2]
            else:
                n = 'peer' if 'peer' not in used else 'other'
        elif before.rstrip().endswith('δ =') or before.endswith('δ'):
            n = 'delta'
        elif nw in ('tick', 'ticks'):
            n = 'ticks'
        elif after.startswith(' of the {') or after.startswith(' of {'):
            n = 'count'
        elif before.endswith('of the ') or before.endswith('of '):
            n = 'total'
        elif nw in COUNTED:
            n = 'count'
        elif before.endswith('(') and re.search(r'[A-Z_]{2,}\($', before):
            n = 'id'
        elif pw in NAME_BEFORE and before.endswith(' '):
            n = pw
        elif nw and re.match(r'^[a-z]+$', nw):
            n = nw
        elif pw:
            n = pw
        else:
            n = 'n'
        names[i] = take(re.sub(r'[^a-z0-9_]', '', n) or 'n')
    return names


def rename(t, names):
    def one(m):
        i = int(m.group(1))
        return '{' + names[i] + (m.group(2) or '') + '}' if i in names else m.group(0)
    return NUM.sub(one, t)


def load(lang):
    p = os.path.join(CAT, f"{lang}.json")
    if not os.path.exists(p):
        return OrderedDict()
    with open(p, encoding='utf-8') as f:
        return json.load(f, object_pairs_hook=OrderedDict)


def first_appearance(t):
    return list(OrderedDict.fromkeys(re.findall(r'\{([a-z][a-z0-9_]*)(?::[^{}:]*:[^{}:]*)?\}', t)))


def context_key(module, src, start, field_counts):
    """A key suffix from the code before a `Text::new` at `start`."""
    back = src[max(0, start - 700):start]
    m = re.search(r'const\s+([A-Z0-9_]+)\s*:\s*Text\s*=\s*$', back)
    if m:
        name = m.group(1).lower()
        if name.startswith('n_'):
            return 'note.' + name[2:]
        return name
    m = re.search(r'Kind::new\(\s*"([A-Za-z0-9_]+)"\s*,\s*"[^"]*"\s*,\s*Visual::\w+\s*,\s*$', back)
    if m:
        return 'kind.' + m.group(1).lower()
    m = re.search(r'Role::new\(\s*"([a-z0-9-]+)"\s*,\s*Look::\w+\s*,\s*$', back)
    if m:
        return 'role.' + m.group(1).replace('-', '_')
    m = re.search(r'\(\s*"([a-z0-9_-]+)"\s*,\s*[A-Za-z:]+\s*,\s*$', back)
    if m:
        return 'measure.' + m.group(1)
    m = re.search(r'(\w+)::(\w+)\s*=>\s*$', back)
    if m:
        return f"{m.group(1).lower()}.{m.group(2).lower()}"
    m = re.search(r'\b(title|hint|summary|card|applies|explain|label)\s*:\s*$', back)
    if m:
        field = m.group(1)
        pre = back[:m.start()]
        if field in ('title', 'hint'):
            p = list(re.finditer(r'\bid:\s*"([a-z0-9-]+)"', pre))
            if p and 'Preset {' in pre[pre.rfind('Preset {') if 'Preset {' in pre else 0:] and pre.rfind('Preset {') < p[-1].start():
                return f"preset.{p[-1].group(1)}.{field}"
            if p and pre.rfind('Property {') != -1 and pre.rfind('Property {') < p[-1].start():
                return f"property.{p[-1].group(1)}.{field}"
        if field == 'applies':
            field_counts['applies'] = field_counts.get('applies', 0) + 1
            return f"formula.{field_counts['applies']}"
        return field
    return None


INSPECT = re.compile(r"fn inspect\(&self[^)]*\)\s*->\s*Vec<\(&'static str, String\)>\s*\{")


def inspector_labels(src, rel, en, zh, manual):
    """A protocol's `fn inspect` that still returns `Vec<(&'static str, String)>`: its labels
    (`("voted for", ...)`) become `Text::new("voted for", "投票给")` with the Chinese of the
    catalog's `inspect.*` key of that English text, and the signature `Vec<(Text, String)>`.
    A label the catalog does not know is listed: add `inspect.<label>` to both catalogs (or
    write it as `Text::new("…", "…")`) and run again."""
    known = {en[k]: zh.get(k) for k in en if k.startswith('inspect.')}
    out, pos = [], 0
    for m in INSPECT.finditer(src):
        i, depth = m.end(), 1
        while depth and i < len(src):
            depth += (src[i] == '{') - (src[i] == '}')
            i += 1
        body = src[m.end():i]
        missing = []

        def label(lm):
            text = unescape(lm.group(2))
            if known.get(text) is None:
                missing.append(text)
                return lm.group(0)
            return f'{lm.group(1)}Text::new("{lm.group(2)}", "{known[text]}"),'
        body = re.sub(r'((?<![!\w])\(\s*)' + STR + r'\s*,', label, body)
        line = src[:m.start()].count('\n') + 1
        for t in missing:
            manual.append(f"{rel}:{line}: inspector label {t!r} (add inspect.* to both catalogs)")
        head = m.group(0) if missing else m.group(0).replace("&'static str", 'Text')
        out.append(src[pos:m.start()] + head + body)
        pos = i
    out.append(src[pos:])
    new = ''.join(out)
    if new != src and not re.search(r'^use [^\n]*\bText\b', new, re.M) and 'Vec<(Text, String)>' in new:
        new = new.replace('use crate::meta::', 'use crate::meta::Text;\nuse crate::meta::', 1)
    return new


def main():
    dry = '--dry-run' in sys.argv
    en, zh = load('en'), load('zh')
    args_decl = en.pop('@args', OrderedDict())
    zh.pop('@args', None)
    by_pair = {(en[k], zh.get(k)): k for k in en}

    files = []
    for base in ('crate/core/src', 'crate/protocols/src', 'crate/src', 'www/src'):
        for d, _, fs in os.walk(os.path.join(ROOT, base)):
            for f in sorted(fs):
                if f.endswith('.rs'):
                    files.append(os.path.join(d, f))
    files.sort()

    # First pass: which pairs occur in more than one module (they get a `common.` key).
    seen = {}
    for p in files:
        src = open(p, encoding='utf-8').read()
        for m in TEXT_NEW.finditer(src):
            seen.setdefault((unescape(m.group(1)), unescape(m.group(2))), set()).add(p)
    shared = {pair for pair, ps in seen.items() if len(ps) > 1}

    manual = []
    changed = {}
    for p in files:
        rel = os.path.relpath(p, ROOT)
        src = open(p, encoding='utf-8').read()
        src = inspector_labels(src, rel, en, zh, manual)
        tests_at = src.find('#[cfg(test)]')
        module = os.path.splitext(os.path.basename(p))[0]
        parent = os.path.basename(os.path.dirname(p))
        if module == 'mod' or parent == 'experiment':
            module = parent
        in_www = rel.startswith('www/')
        field_counts = {}
        renames = {}

        def keyed(en_t, zh_t, suffix, prefix):
            names = name_args(en_t, zh_t)
            en_n, zh_n = rename(en_t, names), rename(zh_t, names)
            pair = (en_n, zh_n)
            if pair in by_pair:
                return by_pair[pair]
            if (en_t, zh_t) in shared and not in_www:
                prefix = 'common'
            key = f"{prefix}.{suffix}"
            base, n = key, 2
            while key in en:
                key = f"{base}_{n}"
                n += 1
            en[key] = en_n
            zh[key] = zh_n
            by_pair[pair] = key
            order = [names[i] for i in sorted(names)]
            if order and order != first_appearance(en_n):
                args_decl[key] = order
            return key

        def repl_text(m):
            if 0 <= tests_at < m.start():
                return m.group(0)
            en_t, zh_t = unescape(m.group(1)), unescape(m.group(2))
            suffix = context_key(module, src, m.start(), field_counts) or slug(en_t)
            key = keyed(en_t, zh_t, suffix, module)
            back = src[max(0, m.start() - 200):m.start()]
            c = re.search(r'const\s+([A-Z0-9_]+)\s*:\s*Text\s*=\s*$', back)
            if c:
                renames[c.group(1)] = const_name(key)
            return 'k::' + const_name(key)

        new = TEXT_NEW.sub(repl_text, src)

        if in_www:
            def repl_tr(m):
                if 0 <= tests_at < m.start():
                    return m.group(0)
                en_t, zh_t = unescape(m.group(2)), unescape(m.group(3))
                key = keyed(en_t, zh_t, slug(en_t), 'ui')
                return f"tr({m.group(1)}, k::{const_name(key)})"
            new = TR.sub(repl_tr, new)

        # `const N_X: Text = k::KEY;` -> gone, its uses name the key (private constants only).
        for old, kname in renames.items():
            decl = re.compile(r'\n(?:///[^\n]*\n)*const\s+' + old + r'\s*:\s*Text\s*=\s*k::' + kname + r'\s*;')
            if decl.search(new):
                new = decl.sub('', new)
                new = re.sub(r'\b' + old + r'\b', 'k::' + kname, new)
                # A test module that imported the constant (`use super::{X, N_SKIP}`) names the
                # key through `crate::meta::k` instead; `*n.text == N_SKIP` compares keys.
                new = re.sub(r'(use super::\{[^}]*?),\s*k::' + kname + r'\b', r'\1, crate::meta::k', new)
                new = re.sub(r'\*(\w+)\.text == k::' + kname + r'\b', r'\1.text == k::' + kname, new)

        if new != src:
            if 'k::' in new and rel != 'crate/core/src/meta.rs' and not re.search(r'^use [^\n]*\bk\b', new, re.M):
                line = 'use election_lab::meta::k;\n' if in_www else 'use crate::meta::k;\n'
                m = re.search(r'^use [^\n]*;\n', new, re.M)
                at = m.start() if m else (re.search(r'^(?!//)', new, re.M).start())
                new = new[:at] + line + new[at:]
            changed[p] = new

        for m in re.finditer(r'\btr\(\s*[^)]*\)', new):
            if '"' in m.group(0) and 'k::' not in m.group(0) and not (0 <= tests_at < m.start()) and 'fn tr(' not in new[max(0, m.start() - 8):m.end()]:
                manual.append(f"{rel}:{new[:m.start()].count(chr(10)) + 1}: {m.group(0)[:90]}")
        for m in re.finditer(r'Lang::Zh\s*=>\s*(?:format!|html!|"|\{)', new):
            # The lookup itself (meta.rs, i18n.rs) matches on the language; that is no text.
            if rel in ('crate/core/src/meta.rs', 'www/src/i18n.rs'):
                continue
            if not (0 <= tests_at < m.start()):
                manual.append(f"{rel}:{new[:m.start()].count(chr(10)) + 1}: match on Lang (by hand)")

    for p, new in changed.items():
        print('rewrote' if not dry else 'would rewrite', os.path.relpath(p, ROOT))
        if not dry:
            with open(p, 'w', encoding='utf-8') as f:
                f.write(new)
    if not dry:
        os.makedirs(CAT, exist_ok=True)
        out_en = OrderedDict(sorted(en.items()))
        if args_decl:
            out_en['@args'] = OrderedDict(sorted(args_decl.items()))
        for lang, d in (('en', out_en), ('zh', OrderedDict(sorted(zh.items())))):
            with open(os.path.join(CAT, f"{lang}.json"), 'w', encoding='utf-8') as f:
                json.dump(d, f, ensure_ascii=False, indent=1)
                f.write('\n')
    print(f"{len(en)} keys")
    if manual:
        print("left for hand conversion:")
        for m in manual:
            print("  " + m)


if __name__ == '__main__':
    main()
