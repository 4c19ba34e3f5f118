//! Where recorded runs come from: the timestamp reader the log mappings share, the log sources
//! (the shipped mappings: etcd, ZooKeeper, Redis Sentinel) with their detection, and the textbook
//! model a recorded run replays in.

use super::*;

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// Reads `YYYY?MM?DD?hh:mm:ss` (any one-character separators) and an optional fraction after
/// `.` or `,` from the start of `s`: milliseconds since 1970, and whether the fraction was there.
pub fn parse_stamp(s: &str) -> Option<(u64, bool)> {
    let b = s.as_bytes();
    if b.len() < 19 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u64> {
        let t = s.get(r)?;
        if t.bytes().all(|c| c.is_ascii_digit()) {
            t.parse().ok()
        } else {
            None
        }
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo)
        || !(1..=31).contains(&d)
        || h > 23
        || mi > 59
        || se > 60
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let mut ms =
        (days_from_civil(y as i64, mo as u32, d as u32).max(0) as u64 * 86_400 + h * 3600 + mi * 60 + se) * 1000;
    let mut precise = false;
    if b.len() > 20 && (b[19] == b'.' || b[19] == b',') {
        let digits: String = s[20..].chars().take_while(|c| c.is_ascii_digit()).collect();
        if !digits.is_empty() {
            let mut frac = digits.chars().take(3).collect::<String>();
            while frac.len() < 3 {
                frac.push('0');
            }
            ms += frac.parse::<u64>().ok()?;
            precise = true;
        }
    }
    Some((ms, precise))
}

/// A kind of log the app reads with a shipped mapping (`events::mapping::SHIPPED`, the same
/// names), the recorded algorithm its run is drawn by, and the textbook algorithm that replays it.
pub struct Source {
    /// `etcd`, `zookeeper`, `sentinel`: the shipped mapping's name, the CLI's `import` argument.
    pub name: &'static str,
    pub algorithm: &'static str,
    pub model: &'static str,
}

pub static SOURCES: &[Source] = &[
    Source { name: "etcd", algorithm: systems::etcd::ID, model: systems::etcd::MODEL },
    Source { name: "zookeeper", algorithm: systems::zookeeper::ID, model: systems::zookeeper::MODEL },
    // Sentinel's vote per epoch is drawn in Raft's words, by etcd's puppet.
    Source { name: "sentinel", algorithm: systems::etcd::ID, model: systems::etcd::MODEL },
];

/// The source named `name`, or an error naming the known ones.
pub fn source(name: &str) -> Result<&'static Source, String> {
    SOURCES.iter().find(|s| s.name == name).ok_or_else(|| {
        let names: Vec<&str> = SOURCES.iter().map(|s| s.name).collect();
        format!("unknown log kind '{name}' (expected one of: {})", names.join(", "))
    })
}

#[cfg(feature = "mappings")]
impl Source {
    /// Its shipped mapping, read.
    pub fn mapping(&self) -> crate::protocols::events::mapping::Mapping {
        use crate::protocols::events::mapping::Mapping;
        let text = Mapping::shipped(self.name).expect("every source has a shipped mapping");
        Mapping::read(text).expect("a shipped mapping reads")
    }

    /// Logs of this kind, read through its shipped mapping.
    pub fn import(&self, files: &[LogFile]) -> Result<Imported, String> {
        self.mapping().import(files)
    }
}

/// The source whose shipped mapping reads the most events from these logs, if any reads one.
#[cfg(feature = "mappings")]
pub fn detect(files: &[LogFile]) -> Option<&'static Source> {
    let (name, _) = crate::protocols::events::mapping::Mapping::best(files)?;
    source(name).ok()
}

/// The first source that made recorded algorithm `id`, if it is one.
pub fn source_of(id: &str) -> Option<&'static Source> {
    SOURCES.iter().find(|s| s.algorithm == id)
}

/// The textbook model of a recorded scenario: the same members, network, timeouts, faults and
/// starting leader, under the algorithm the real system implements, with that algorithm's
/// default parameters (what a compare lane of it runs). A member paused in the recording is
/// crashed at its pause and recovered at its resume in the model, the nearest fault a textbook
/// algorithm has (its volatile state is lost there, kept in the recording).
pub fn model_scenario(scenario: &crate::scenario::Scenario) -> Option<crate::scenario::Scenario> {
    use crate::scenario::{Action, Scheduled};
    let source = source_of(&scenario.algorithm)?;
    let mut s = scenario.clone();
    s.algorithm = source.model.to_string();
    for e in s.params.get("events").and_then(Value::as_array).into_iter().flatten() {
        let (Some(at), Some(node), Some(paused)) = (e["at"].as_u64(), e["node"].as_u64(), e["paused"].as_bool()) else {
            continue;
        };
        let node = node as NodeId;
        s.schedule.push(Scheduled { at, action: if paused { Action::Crash(node) } else { Action::Recover(node) } });
    }
    crate::sort::sort_by_key(&mut s.schedule, |x| x.at);
    s.params.clear();
    Some(s)
}
