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
//! A question is held to what the class has been shown too: a message count must name, in its
//! caption or its prompt and in both languages, every kind it counts (its `kinds`, or every kind
//! the run sends until the answer is read), so that nobody is asked to count messages of a kind
//! the stop never mentioned.

use super::check::MAX_CHECK_STEPS;
use super::{Check, Lesson, Question};
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
    let mut rest = caption;
    while let Some(i) = rest.find('N') {
        let after = &rest[i + 1..];
        let digits: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
        // An id, not a word that starts with N ("Now", "N(N+1)/2").
        let word_start = rest[..i].chars().next_back().is_none_or(|c| !c.is_ascii_alphanumeric());
        if !digits.is_empty() && word_start {
            if let Ok(id) = digits.parse::<NodeId>() {
                let tail = &after[digits.len()..];
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
        }
        rest = &after[digits.len()..];
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
                    if !caption.contains(kind.as_str()) && !prompt.contains(kind.as_str()) {
                        problems.push(format!(
                            "stops[{i}] ({lang}): the question counts {kind} messages, which neither its caption nor its prompt names"
                        ));
                    }
                }
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
    Ok(problems)
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
