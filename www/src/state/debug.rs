//! Debugging a run in the page: the event-log filter. The breakpoints, which the workbench
//! edits and plays to, are in `breakpoints.rs`.

use election_lab::Engine;

/// The kinds of event the log can be narrowed to: the engine's step kinds, and your notes
/// (interventions) between the steps.
pub const LOG_TYPES: &[&str] = &["deliver", "drop", "timer", "fault", "note"];

/// What the event log shows: everything, or only the events of a node, a message kind, a type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogFilter {
    pub node: Option<u32>,
    pub kind: Option<String>,
    pub event: Option<&'static str>,
}

impl LogFilter {
    pub fn is_empty(&self) -> bool {
        *self == LogFilter::default()
    }

    /// Whether step info `info` passes the filter.
    pub fn keeps(&self, info: &election_lab::StepInfo) -> bool {
        self.node.is_none_or(|n| info.node == n || info.peer == Some(n))
            && self.kind.as_deref().is_none_or(|k| info.kind == Some(k))
            && self.event.is_none_or(|e| e == info.event)
    }

    /// Whether your interventions (notes) show: only when no node or kind is asked for and the
    /// type, if any, is `note`.
    pub fn keeps_notes(&self) -> bool {
        self.node.is_none() && self.kind.is_none() && self.event.is_none_or(|e| e == "note")
    }

    /// `log=node:3&log=kind:VOTE&log=type:deliver`.
    pub fn query(&self) -> String {
        let mut q = String::new();
        if let Some(n) = self.node {
            q.push_str(&format!("&log=node:{n}"));
        }
        if let Some(k) = &self.kind {
            q.push_str(&format!("&log=kind:{}", crate::link::encode(k)));
        }
        if let Some(e) = self.event {
            q.push_str(&format!("&log=type:{e}"));
        }
        q
    }

    /// Reads the `log=` values of a link for this engine; what is not understood is named.
    pub fn read(values: &[&str], engine: &Engine) -> (LogFilter, Vec<String>) {
        let mut f = LogFilter::default();
        let mut bad = Vec::new();
        for v in values {
            match v.split_once(':') {
                Some(("node", n)) => match n.trim().trim_start_matches('N').parse::<u32>() {
                    Ok(id) if engine.scenario().nodes.contains(&id) => f.node = Some(id),
                    _ => bad.push(format!("log=node:{n}: no such node")),
                },
                Some(("kind", k)) => match engine.kinds().iter().find(|x| x.name.eq_ignore_ascii_case(k.trim())) {
                    Some(kind) => f.kind = Some(kind.name.to_string()),
                    None => bad.push(format!("log=kind:{k}: no such message kind")),
                },
                Some(("type", t)) => match LOG_TYPES.iter().find(|x| **x == t.trim()) {
                    Some(t) => f.event = Some(t),
                    None => bad.push(format!("log=type:{t}: expected one of {}", LOG_TYPES.join(", "))),
                },
                _ => bad.push(format!("log={v}: expected node:<id>, kind:<KIND> or type:<type>")),
            }
        }
        (f, bad)
    }
}
