#!/usr/bin/env python3
"""Bully, after H. Garcia-Molina, "Elections in a Distributed Computing System", IEEE
Transactions on Computers C-31(1), 1982: the live process with the highest id wins.

One Election Lab node as a process: `election-lab run SCENARIO --node-cmd 'python3 bully.py'`.
It reads one event a line on standard input and answers each with one line on standard output
(see the guide's chapter "Nodes in any language"). The rules are the built-in Bully's, in the
same order, so on every Bully preset it elects the same leaders with the same messages.
"""
import json
import sys

DECLARATION = {
    "id": "bully-py",
    "title": {"en": "Bully (Python node)", "zh": "霸道算法（Python 节点）"},
    "citation": "H. Garcia-Molina, Elections in a Distributed Computing System, "
    "IEEE Transactions on Computers C-31(1), 1982",
    "summary": "bully.summary",
    "kinds": [
        {"name": "ELECTION", "short": "E", "visual": "request", "explain": "common.kind.election"},
        {"name": "OK", "short": "OK", "visual": "answer", "explain": "common.kind.ok"},
        {"name": "COORDINATOR", "short": "C", "visual": "announcement", "explain": "bully.kind.coordinator"},
        {"name": "HEARTBEAT", "short": "hb", "visual": "heartbeat", "explain": "common.kind.heartbeat"},
    ],
    "roles": [{"name": "waiting-coord", "look": "waiting", "explain": "bully.role.waiting_coord"}],
    "timers": ["DEADLINE", "LEADER_TIMEOUT", "HEARTBEAT"],
    "params": {"t_out": None, "t_coord": None},
    "claims": [{"property": "split-brain", "holds": "crash-stop"}],
    "fields": [{"name": "stage", "label": "inspect.stage"}],
}


class Bully:
    def __init__(self, init):
        self.me = init["me"]
        self.ids = sorted(init["ids"])
        self.hb = init["heartbeats"]  # {"interval": ..., "timeout": ...} or None
        params = init["params"]
        self.t_out = params["t_out"] if params["t_out"] is not None else 2 * init["latency"][1] + 1
        self.t_coord = params["t_coord"] if params["t_coord"] is not None else 3 * self.t_out
        self.fx = []
        self.reset(init["initial_leader"])

    def reset(self, leader):
        self.elected, self.in_elect, self.stage = leader, False, "IDLE"

    # ----- the effects: collected, written with the answer -----
    def send(self, to, kind, **fields):
        self.fx.append({"send": {"to": to, "kind": kind, "fields": fields}})

    def broadcast(self, kind):
        self.fx.append({"broadcast": {"kind": kind}})

    def set_timer(self, name, ticks):
        self.fx.append({"set_timer": {"name": name, "after": ticks}})

    def cancel_timer(self, name):
        self.fx.append({"cancel_timer": name})

    def note(self, text, **args):
        self.fx.append({"note": {"text": text, "args": args}})

    # ----- the rules -----
    def start_election(self):
        if self.elected == self.me:
            return
        self.in_elect, self.stage, self.elected = True, "WAIT_OK", None
        self.cancel_timer("LEADER_TIMEOUT")
        self.set_timer("DEADLINE", self.t_out)
        higher = [j for j in self.ids if j > self.me]
        if not higher:
            self.note("bully.note.top", node=self.me)
            self.become_leader()
            return
        self.note("bully.note.start_2", node=self.me, count=len(higher), ticks=self.t_out)
        for j in higher:
            self.send(j, "ELECTION")

    def become_leader(self):
        self.in_elect, self.stage, self.elected = False, "IDLE", self.me
        self.cancel_timer("DEADLINE")
        self.cancel_timer("LEADER_TIMEOUT")
        for j in [j for j in self.ids if j < self.me]:
            self.send(j, "COORDINATOR", id=self.me)
        if self.hb:
            self.set_timer("HEARTBEAT", self.hb["interval"])

    def challenge(self, lower):
        # A leader that hears a lower leader gives up its leadership for an election.
        self.note("bully.note.challenge", node=self.me, peer=lower)
        self.cancel_timer("HEARTBEAT")
        self.elected = None
        self.start_election()

    def leader_alive(self):
        # Heard from (or about) the leader: re-arm the failure detector.
        if self.hb and self.elected is not None and self.elected != self.me:
            self.set_timer("LEADER_TIMEOUT", self.hb["timeout"])

    # ----- the events -----
    def init(self):
        if not self.hb:
            return
        if self.elected == self.me:
            self.set_timer("HEARTBEAT", self.hb["interval"])
        elif self.elected is not None:
            self.leader_alive()
        else:
            self.start_election()

    def on_message(self, frm, kind, fields):
        me = self.me
        if kind == "ELECTION" and me > frm:
            self.send(frm, "OK")
            if self.elected == me:
                self.note("common.note.bully_leader", node=me, **{"from": frm})
                self.send(frm, "COORDINATOR", id=me)
            elif not self.in_elect:
                self.note("common.note.bully", node=me, **{"from": frm})
                self.start_election()
            else:
                self.note("bully.note.bully_busy", node=me, **{"from": frm})
        elif kind == "OK" and self.in_elect and self.stage == "WAIT_OK":
            self.note("common.note.ok", node=me, **{"from": frm})
            self.stage = "WAIT_COORD"
            self.set_timer("DEADLINE", self.t_coord)
        elif kind == "COORDINATOR":
            k = fields["id"]
            if k < me and self.elected == me:
                return self.challenge(k)
            was_leader = self.elected == me
            if k >= me or self.elected is None:
                self.note("bully.note.accept", node=me, **{"from": k})
                self.elected = k
            else:
                self.note("common.note.ignore", node=me, **{"from": k})
            self.in_elect, self.stage = False, "IDLE"
            self.cancel_timer("DEADLINE")
            if was_leader and self.elected != me:
                self.cancel_timer("HEARTBEAT")
            self.leader_alive()
        elif kind == "HEARTBEAT":
            if frm < me and self.elected == me:
                return self.challenge(frm)
            if self.elected == frm:
                self.note("common.note.alive", node=me, peer=frm)
                self.leader_alive()

    def on_timer(self, name):
        if name == "DEADLINE" and self.in_elect:
            if self.stage == "WAIT_OK":
                self.note("bully.note.no_ok", node=self.me, ticks=self.t_out)
                self.become_leader()
            else:
                self.note("bully.note.no_coord", node=self.me, ticks=self.t_coord)
                self.start_election()
        elif name == "LEADER_TIMEOUT" and self.elected not in (None, self.me):
            self.note("common.note.suspect", node=self.me, leader=self.elected, ticks=self.hb["timeout"])
            self.elected = None
            self.start_election()
        elif name == "HEARTBEAT" and self.elected == self.me:
            self.note("common.note.beat", node=self.me)
            self.broadcast("HEARTBEAT")
            self.set_timer("HEARTBEAT", self.hb["interval"])

    def on_recover(self):
        # All state is volatile: a recovered process knows no leader and starts an election.
        self.reset(None)
        self.note("common.note.recover", node=self.me)
        self.start_election()

    def state(self):
        if self.elected == self.me:
            role = "leader"
        else:
            role = {"WAIT_OK": "candidate", "WAIT_COORD": "waiting-coord"}.get(self.stage, "follower")
        return {"role": role, "leader": self.elected, "stage": self.stage}


def main():
    node = None
    for line in sys.stdin:
        event = json.loads(line)
        what = event["event"]
        if what == "hello":
            print(json.dumps(DECLARATION), flush=True)
            continue
        if what == "init":
            node = Bully(event)
            node.init()
        elif what == "start":
            node.start_election()
        elif what == "message":
            node.on_message(event["from"], event["kind"], event["fields"])
        elif what == "timer":
            node.on_timer(event["name"])
        elif what == "recover":
            node.on_recover()
        answer = {"effects": node.fx, "state": node.state()}
        node.fx = []
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
