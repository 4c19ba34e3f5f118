#!/usr/bin/env python3
"""kiln: a made-up cluster of three members (ant, bee, cat) that elects a leader per epoch by a
majority vote and logs it in a format of its own, for the tests of log mappings: no shipped
mapping reads it, crate/tests/data/fake-system/kiln-mapping.json does.

It runs its members in a simulated clock (one tick a millisecond, timeouts and delays drawn from
its own seeded generator, so a seed gives the same logs), kills the first leader at 2000 ms,
lets the survivors elect another, and writes DIR/ant.log, DIR/bee.log, DIR/cat.log and
DIR/status.txt ("after: leader NAME epoch E", what the cluster itself reports).

    python3 kiln.py DIR [SEED]
"""
import heapq
import os
import random
import sys

BASE_MS = 1796551200000  # the wall time of tick 0 (2026-12-06 10:00:00 UTC)
NAMES = ["ant", "bee", "cat"]
KILL_AT = 2000


def main():
    out = sys.argv[1]
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
    os.makedirs(out, exist_ok=True)
    logs = {n: open(os.path.join(out, n + ".log"), "w") for n in NAMES}
    st = {n: {"epoch": 0, "voted": {}, "role": "follower", "votes": set(), "alive": True, "deadline": 0, "leader": None} for n in NAMES}
    queue, seq = [], [0]

    def at(t, what, *args):
        seq[0] += 1
        heapq.heappush(queue, (t, seq[0], what, args))

    def log(t, n, text):
        logs[n].write("kiln|%d|%s|%s\n" % (BASE_MS + t, n, text))

    def arm(t, n):
        st[n]["deadline"] = t + rng.randint(300, 600)
        at(st[n]["deadline"], "timeout", n)

    for n in NAMES:
        log(0, n, "hello, kiln 0.3 starting")
        arm(0, n)
    at(KILL_AT, "kill")
    leader_seen = None
    while queue:
        t, _, what, args = heapq.heappop(queue)
        if t > 6000:
            break
        if what == "kill":
            leaders = [n for n in NAMES if st[n]["role"] == "leader" and st[n]["alive"]]
            for n in leaders:
                st[n]["alive"] = False
                killed = n
            continue
        n = args[0]
        s = st[n]
        if not s["alive"]:
            continue
        if what == "timeout":
            if t != s["deadline"] or s["role"] == "leader":
                continue
            if s["leader"] is not None:
                log(t, n, "LOST %s" % s["leader"])
                s["leader"] = None
            s["epoch"] += 1
            s["role"] = "candidate"
            s["voted"][s["epoch"]] = n
            s["votes"] = {n}
            log(t, n, "EPOCH %d CAMPAIGN" % s["epoch"])
            for p in NAMES:
                if p != n:
                    log(t, n, "-> %s ASK epoch=%d" % (p, s["epoch"]))
                    at(t + rng.randint(1, 5), "ask", p, n, s["epoch"])
            arm(t, n)
        elif what == "ask":
            _, frm, epoch = args
            log(t, n, "<- %s ASK epoch=%d" % (frm, epoch))
            if epoch > s["epoch"]:
                s["epoch"], s["role"] = epoch, "follower"
                log(t, n, "EPOCH %d FOLLOWER" % epoch)
            if epoch == s["epoch"] and s["voted"].get(epoch) in (None, frm):
                s["voted"][epoch] = frm
                log(t, n, "YES %s epoch=%d" % (frm, epoch))
                at(t + rng.randint(1, 5), "yes", frm, n, epoch)
                arm(t, n)
        elif what == "yes":
            _, frm, epoch = args
            log(t, n, "<- %s YES epoch=%d" % (frm, epoch))
            if s["role"] == "candidate" and epoch == s["epoch"]:
                s["votes"].add(frm)
                if len(s["votes"]) * 2 > len(NAMES):
                    s["role"] = "leader"
                    leader_seen = (n, epoch)
                    log(t, n, "EPOCH %d LEADER" % epoch)
                    for p in NAMES:
                        if p != n:
                            at(t + rng.randint(1, 5), "lead", p, n, epoch)
                    at(t + 100, "beat", n)
        elif what == "lead":
            _, frm, epoch = args
            if epoch >= s["epoch"]:
                s["epoch"], s["role"], s["leader"] = epoch, "follower", frm
                log(t, n, "EPOCH %d FOLLOW %s" % (epoch, frm))
                arm(t, n)
        elif what == "beat":
            if s["role"] == "leader":
                for p in NAMES:
                    if p != n and st[p]["alive"] and st[p]["epoch"] <= s["epoch"]:
                        arm(t, p)
                at(t + 100, "beat", n)
    for f in logs.values():
        f.close()
    with open(os.path.join(out, "status.txt"), "w") as f:
        f.write("killed %s\nafter: leader %s epoch %d\n" % (killed, leader_seen[0], leader_seen[1]))


main()
