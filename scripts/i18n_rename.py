#!/usr/bin/env python3
"""Renames catalog keys everywhere: in every language's catalog, its `@args`, and the sources.

    python3 scripts/i18n_rename.py OLD.KEY NEW.KEY [OLD2 NEW2 ...]
"""
import json, os, re, sys
from collections import OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAT = os.path.join(ROOT, "crate", "i18n")


def const(key):
    return re.sub(r'[^A-Za-z0-9]', '_', key).upper()


pairs = list(zip(sys.argv[1::2], sys.argv[2::2]))
for f in sorted(os.listdir(CAT)):
    if not f.endswith('.json'):
        continue
    p = os.path.join(CAT, f)
    d = json.load(open(p, encoding='utf-8'), object_pairs_hook=OrderedDict)
    args = d.pop('@args', None)
    for old, new in pairs:
        if old in d:
            assert new not in d, f"{f}: {new} exists"
            d[new] = d.pop(old)
        if args and old in args:
            args[new] = args.pop(old)
    d = OrderedDict(sorted(d.items()))
    if args:
        d['@args'] = OrderedDict(sorted(args.items()))
    with open(p, 'w', encoding='utf-8') as out:
        json.dump(d, out, ensure_ascii=False, indent=1)
        out.write('\n')
for base in ('crate', 'www'):
    for dp, _, fs in os.walk(os.path.join(ROOT, base)):
        if '/target' in dp or 'node_modules' in dp:
            continue
        for f in fs:
            if f.endswith('.rs'):
                p = os.path.join(dp, f)
                s = open(p, encoding='utf-8').read()
                t = s
                for old, new in pairs:
                    t = re.sub(r'\bk::' + const(old) + r'\b', 'k::' + const(new), t)
                if t != s:
                    open(p, 'w', encoding='utf-8').write(t)
