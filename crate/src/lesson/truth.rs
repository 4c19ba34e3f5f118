//! A lesson's captions checked against its run: what a caption says of the nodes at its stop —
//! "N8 has just crashed", "N7 leads" (在中文里："N8 已宕机"、"N7 成为领导者") — must be what the
//! canvas shows there, and both languages must say the same. [`check`] walks the lesson as the
//! page does ([`super::check::visit`]) and lists every disagreement, naming the stop and the
//! language.
//!
//! The claims read are a node being down and a node leading; a caption that speaks of the past
//! or of another node's belief ("a crashed N5 and a cut-off one look the same", "the leader
//! N8") is not read as a claim, since the phrases read are a node's id followed by its state.
//!
//! A caption or prompt that says a message is on its way ("the dot on its way", "在途") claims
//! that a message between the nodes its sentence names (of the kinds it names, if any) is in
//! flight on the canvas at that stop.
//!
//! A question is held to what the class has been shown too: a message count must name, in its
//! caption or its prompt and in both languages, every kind it counts (its `kinds`, or every kind
//! the run sends until the answer is read), each as a whole word (`VOTE` is not named by
//! `REQUEST_VOTE`), so that nobody is asked to count messages of a kind the stop never
//! mentioned. And a question about what the run *will* do must be settled within what the
//! lesson goes on to show of that run: read as if the run ended at the last stop before an act
//! changes its future (the stop itself, when it acts), the answer must be the same. A prediction
//! ("who will lead?") is fine; a prediction the lesson never lets the class see come true is not.

use super::check::{Job, MAX_CHECK_STEPS};
use super::{Answer, Check, Lesson, Question};
use crate::engine::Engine;
use crate::error::ScenarioError;
use crate::meta::Lang;
use crate::NodeId;

/// One thing a caption says of a node at its stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Claim {
    /// The node is crashed.
    Down(NodeId),
    /// The node believes it leads (it is drawn as a leader).
    Leads(NodeId),
}

/// A phrase that follows a node's id, its language, and the claim it makes.
type Phrase = (Lang, &'static str, fn(NodeId) -> Claim);

/// The phrases read, per language.
const PHRASES: &[Phrase] = &[
    (Lang::En, " has just crashed", Claim::Down),
    (Lang::En, " has crashed", Claim::Down),
    (Lang::En, " is down", Claim::Down),
    (Lang::En, " crashed", Claim::Down),
    (Lang::En, " leads", Claim::Leads),
    (Lang::En, " is the leader", Claim::Leads),
    (Lang::En, " is leader", Claim::Leads),
    (Lang::Zh, "刚刚崩溃", Claim::Down),
    (Lang::Zh, "已崩溃", Claim::Down),
    (Lang::Zh, "已宕机", Claim::Down),
    (Lang::Zh, "成为领导者", Claim::Leads),
    (Lang::Zh, "是领导者", Claim::Leads),
    (Lang::Zh, "领导任期", Claim::Leads),
    (Lang::Zh, "仍是领导者", Claim::Leads),
];

/// The claims `caption` (in `lang`) makes, sorted, without repeats.
pub fn claims(caption: &str, lang: Lang) -> Vec<Claim> {
    let mut out = Vec::new();
    for (id, tail) in mentions(caption) {
        let tail_zh = tail.trim_start();
        for (l, phrase, claim) in PHRASES {
            let said = match l {
                Lang::En => tail.starts_with(phrase),
                _ => tail_zh.starts_with(phrase),
            };
            if *l == lang && said {
                out.push(claim(id));
                break;
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Whether `claim` holds on the run `e` at its cursor.
pub fn holds(claim: Claim, e: &Engine) -> bool {
    match claim {
        Claim::Down(n) => e.is_up(n) == Some(false),
        Claim::Leads(n) => e.leaders().contains(&n),
    }
}

/// Every stop whose caption says something of the nodes the run does not show there, or says it
/// in one language only (`stops[0] (en): says N8 is down, but N8 is up at step 0`).
pub fn check(lesson: &Lesson) -> Result<Vec<String>, ScenarioError> {
    let mut problems = Vec::new();
    super::check::visit(lesson, &mut |i, e| {
        let stop = &lesson.stops[i];
        if let Some(q) = &stop.question {
            for kind in counted_kinds(q, e) {
                for (lang, caption, prompt) in
                    [("en", &stop.caption.en, &q.prompt.en), ("zh", &stop.caption.zh, &q.prompt.zh)]
                {
                    if !names_kind(caption, &kind) && !names_kind(prompt, &kind) {
                        problems.push(format!(
                            "stops[{i}] ({lang}): the question counts {kind} messages, which neither its caption nor its prompt names"
                        ));
                    }
                }
            }
        }
        let kinds: Vec<&str> = e.algorithm().kinds.iter().map(|k| k.name).collect();
        let said = |lang: Lang| {
            let mut texts = vec![stop.caption.get(lang)];
            texts.extend(stop.question.as_ref().map(|q| q.prompt.get(lang)));
            let mut out: Vec<Flight> = texts.iter().flat_map(|t| flights(t, lang, &kinds)).collect();
            out.sort();
            out
        };
        let (fen, fzh) = (said(Lang::En), said(Lang::Zh));
        if fen != fzh {
            problems.push(format!(
                "stops[{i}]: the languages disagree on messages in flight: en says {fen:?}, zh says {fzh:?}"
            ));
        }
        let shown = e.frame().messages;
        for f in &fen {
            if !shown.iter().any(|m| f.matches(m.kind, m.from, m.to)) {
                let drawn: Vec<String> = shown.iter().map(|m| format!("{} N{}→N{}", m.kind, m.from, m.to)).collect();
                problems.push(format!(
                    "stops[{i}]: says a message {} is on its way, but in flight at step {} are [{}]",
                    f.describe(),
                    e.cursor(),
                    drawn.join(", ")
                ));
            }
        }
        let (en, zh) = (claims(&stop.caption.en, Lang::En), claims(&stop.caption.zh, Lang::Zh));
        if en != zh {
            problems.push(format!("stops[{i}]: the languages disagree: en says {en:?}, zh says {zh:?}"));
        }
        for (lang, list) in [("en", &en), ("zh", &zh)] {
            for c in list.iter().filter(|c| !holds(**c, e)) {
                let (said, shown) = match *c {
                    Claim::Down(n) => (format!("N{n} is down"), format!("N{n} is up")),
                    Claim::Leads(n) => {
                        let l: Vec<String> = e.leaders().iter().map(|x| format!("N{x}")).collect();
                        (format!("N{n} leads"), format!("the leaders are [{}]", l.join(", ")))
                    }
                };
                problems.push(format!("stops[{i}] ({lang}): says {said}, but {shown} at step {}", e.cursor()));
            }
        }
    })?;
    problems.extend(unshown_answers(lesson)?);
    Ok(problems)
}

/// Whether `text` names the message kind `kind` as a word: not inside a longer name
/// (`REQUEST_VOTE` does not name `VOTE`); a plural `s` may follow (`ELECTIONs`).
pub fn names_kind(text: &str, kind: &str) -> bool {
    let name = |c: char| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_';
    text.match_indices(kind).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + kind.len()..].chars().next();
        before.is_none_or(|c| !name(c) && !c.is_ascii_lowercase()) && after.is_none_or(|c| !name(c))
    })
}

/// A message a sentence says is on its way: between the nodes it names (any message touching the
/// one node it names; any message if none) and of one of the kinds it names (any if none).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Flight {
    pub nodes: Vec<NodeId>,
    pub kinds: Vec<String>,
}

impl Flight {
    fn matches(&self, kind: &str, from: NodeId, to: NodeId) -> bool {
        let nodes = match self.nodes.as_slice() {
            [] => true,
            [n] => *n == from || *n == to,
            list => list.contains(&from) && list.contains(&to),
        };
        nodes && (self.kinds.is_empty() || self.kinds.iter().any(|k| k == kind))
    }
    fn describe(&self) -> String {
        let nodes: Vec<String> = self.nodes.iter().map(|n| format!("N{n}")).collect();
        let kinds = if self.kinds.is_empty() { "of any kind".to_string() } else { self.kinds.join(" or ") };
        format!("{kinds} between [{}]", nodes.join(", "))
    }
}

/// The phrases that say a message is travelling, per language.
const ON_THE_WAY: &[(Lang, &str)] = &[
    (Lang::En, "on its way"),
    (Lang::En, "on their way"),
    (Lang::En, "in flight"),
    (Lang::En, "in transit"),
    (Lang::Zh, "正在路上"),
    (Lang::Zh, "在路上"),
    (Lang::Zh, "在途"),
    (Lang::Zh, "途中"),
];

/// The messages `text` (in `lang`) says are on their way, one per sentence that says so; `kinds`
/// are the algorithm's message kinds (other capitalised words are not kinds).
pub fn flights(text: &str, lang: Lang, kinds: &[&str]) -> Vec<Flight> {
    let ends = ['.', '。', ';', '；', '!', '！', '?', '？', ':', '：', '\n'];
    text.split(ends)
        .filter(|s| ON_THE_WAY.iter().any(|(l, p)| *l == lang && s.contains(p)))
        .map(|s| {
            let mut nodes = node_ids(s);
            nodes.sort_unstable();
            nodes.dedup();
            let kinds = kinds.iter().filter(|k| names_kind(s, k)).map(|k| k.to_string()).collect();
            Flight { nodes, kinds }
        })
        .collect()
}

/// The node ids (`N7`) a text names, in order.
fn node_ids(text: &str) -> Vec<NodeId> {
    mentions(text).into_iter().map(|(id, _)| id).collect()
}

/// Each node id a text names (`N7`, an id, not a word that starts with N: "Now", "N(N+1)/2"),
/// in order, with the text after it.
fn mentions(text: &str) -> Vec<(NodeId, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('N') {
        let after = &rest[i + 1..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let word_start = rest[..i].chars().next_back().is_none_or(|c| !c.is_ascii_alphanumeric());
        if word_start {
            if let Ok(id) = after[..digits].parse::<NodeId>() {
                out.push((id, &after[digits..]));
            }
        }
        rest = &after[digits..];
    }
    out
}

/// Every light question whose answer the lesson does not show: read on the run as if it ended
/// at the last stop that shows this run's future (the next stop that acts, or the last stop;
/// the question's own stop when it acts), the answer differs from the real one.
fn unshown_answers(lesson: &Lesson) -> Result<Vec<String>, ScenarioError> {
    let mut steps = Vec::new();
    super::check::visit(lesson, &mut |_, e| steps.push(e.cursor()))?;
    // The stop whose step is the last one shown of stop i's future.
    let last_shown =
        |i: usize| -> usize { (i..steps.len()).find(|&j| lesson.stops[j].act.is_some()).unwrap_or(steps.len() - 1) };
    let mut problems = Vec::new();
    let mut failed = None;
    super::check::visit(lesson, &mut |i, e| {
        let Some(q) = lesson.stops[i].question.as_ref() else { return };
        let light = !q.heavy() && q.resize.is_none() && q.sweep.is_none() && q.check != Check::MeanMessagesOverOrders;
        if !light || failed.is_some() {
            return;
        }
        let j = last_shown(i);
        let horizon = steps[j];
        let real = match super::check::answer_on(e, q) {
            Ok(a) => a,
            Err(err) => return failed = Some(err.within(&format!("stops[{i}].question"))),
        };
        let seen = Job::new(e, q).map(|job| settle(job.within(horizon)));
        let seen = match seen {
            Ok(Ok(a)) if a == real => return,
            Ok(Ok(a)) => a.text(),
            Ok(Err(err)) | Err(err) => err.to_string(),
        };
        problems.push(format!(
            "stops[{i}]: the answer ({}) is settled after step {horizon}, the last step the lesson shows of this run (stops[{j}]); up to there: {seen}",
            real.text()
        ));
    })?;
    match failed {
        Some(err) => Err(err),
        None => Ok(problems),
    }
}

/// A job run to its answer.
fn settle(mut job: Job) -> Result<Answer, ScenarioError> {
    loop {
        if let Some(answer) = job.advance(u64::MAX) {
            return answer;
        }
    }
}

/// The message kinds a count question at this stop counts: its `kinds`, or else every kind the
/// run sends from the stop until the answer is read (the end of the run, or the next election).
/// Empty for other questions and for heavy ones (computed on a scaled scenario).
pub fn counted_kinds(q: &Question, e: &Engine) -> Vec<String> {
    let counts =
        matches!(q.check, Check::MessagesUntilAgreement | Check::MessagesUntilEnd | Check::MeanMessagesOverOrders);
    if !counts || q.resize.is_some() {
        return Vec::new();
    }
    if !q.kinds.is_empty() {
        return q.kinds.clone();
    }
    let Ok(mut run) = Engine::from_trace_value(&e.trace_value()) else { return Vec::new() };
    let before = run.metrics().by_kind.clone();
    let elections = run.elections().len();
    let mut steps = 0;
    while steps < MAX_CHECK_STEPS && run.step() {
        steps += 1;
        if q.check == Check::MessagesUntilAgreement && run.elections().len() != elections {
            break;
        }
    }
    let was = |k: &str| before.iter().find(|(x, _)| *x == k).map_or(0, |(_, c)| *c);
    run.metrics().by_kind.iter().filter(|(k, c)| *c > was(k)).map(|(k, _)| k.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_a_caption_says_of_the_nodes_in_both_languages() {
        use Claim::*;
        let en = "Eight nodes. The leader N8 has just crashed and N1 is the first to notice. N7 leads.";
        assert_eq!(claims(en, Lang::En), [Down(8), Leads(7)]);
        assert_eq!(claims("领导者 N8 刚刚崩溃，id 最小的 N1 最先察觉。N7 成为领导者。", Lang::Zh), [Down(8), Leads(7)]);
        assert_eq!(claims("N7 heard no OK from above (N8 is down)", Lang::En), [Down(8)]);
        assert_eq!(claims("N1 领导任期 1", Lang::Zh), [Leads(1)]);
        // Not claims: an adjective, a formula, another node's view.
        assert_eq!(claims("a crashed N5 and a cut-off N5 look the same; N(N+1)/2", Lang::En), []);
        assert_eq!(claims("Now N12 waits", Lang::En), []);
    }
}
