//! A merged log read as its members' own files. A file whose lines name several members, each
//! member's named lines in one unbroken run, is the concatenation of per-member logs (`cat a.log
//! b.log c.log`): it is cut into those runs and each is read as the file it was, with its own
//! clock for whole-second lines and its own member for the lines that name none. Where members'
//! lines interleave (a merge sorted by time, or dealt line by line) the file stays one piece.

use super::Event;

/// One line a mapping matched, before its time is placed and its member known: the line number,
/// the time as written (whole seconds for a `coarse` format), the member the line names (its
/// `node`, else a rule's), every member its rules name, the logging process, the events (each with
/// the member its rule named, if any) and the `member` facts (member, name, addr).
pub(super) struct Scanned {
    pub line: usize,
    pub t: u64,
    pub coarse: bool,
    pub member: Option<String>,
    pub names: Vec<String>,
    pub process: Option<String>,
    pub events: Vec<(Option<String>, Event)>,
    pub facts: Vec<(Option<String>, Option<String>, Option<String>)>,
}

/// The pieces of a file to read as files of their own, in order, by how many of its matched
/// lines each holds: one per member when each member's named lines stand together, else the
/// whole file.
pub(super) fn parts(lines: &[Scanned]) -> Vec<usize> {
    let whole = vec![lines.len()];
    // Each member's named lines: (member, first, last), in the order they stand.
    let mut runs: Vec<(&str, usize, usize)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let mut named = l.member.iter().chain(&l.names);
        let Some(m) = named.next() else { continue };
        if named.any(|x| x != m) {
            return whole;
        }
        if let Some(r) = runs.last_mut().filter(|r| r.0 == m) {
            r.2 = i;
        } else if runs.iter().any(|r| r.0 == m) {
            return whole;
        } else {
            runs.push((m, i, i));
        }
    }
    if runs.len() < 2 {
        return whole;
    }
    let mut starts = vec![0];
    for w in runs.windows(2) {
        let from = *starts.last().expect("starts with 0");
        starts.push(cut(lines, from, w[0].2, w[1].1));
    }
    starts.push(lines.len());
    starts.windows(2).map(|w| w[1] - w[0]).collect()
}

/// Where the next member's log begins, between the last named line of one run (`last`) and the
/// first of the next (`first`): at the line whose time falls furthest back (the next log starts
/// earlier than the previous one ended), so the previous member keeps its trailing lines; if no
/// time falls back, right after `last` (the next member's start-up lines name no member yet).
fn cut(lines: &[Scanned], from: usize, last: usize, first: usize) -> usize {
    let mut latest = lines[from..=last].iter().map(|l| l.t).max().unwrap_or(0);
    let mut best = (0, last + 1);
    for (i, l) in lines.iter().enumerate().take(first + 1).skip(last + 1) {
        // A whole second's line may stand up to 999 ms after the second it names.
        let back = latest.saturating_sub(l.t + if l.coarse { 999 } else { 0 });
        if back > best.0 {
            best = (back, i);
        }
        latest = latest.max(l.t);
    }
    best.1
}
