//! Real clusters' logs in the page: several files at once (the Import… picker or a drop), their
//! kind detected, opened as a recorded run with its conformance to the model
//! (`protocols::conform`); and "Replay in the simulator", which opens compare lanes with the
//! recorded run and its textbook model on one clock. The page's texts of this feature are here,
//! in one place.
//!
//! What reads the files: an events file (`election-lab-events/1`) is read as one; a mapping file
//! given beside logs reads them; any other logs (etcd's, ZooKeeper's, Redis Sentinel's, per
//! member or merged) go to the shipped mapping that reads the most lines of them, named in the
//! notice. Mappings are regular expressions: the workbench carries them (feature `mappings`), the
//! player never does.

use super::State;
use crate::i18n::{tr, Lang};
use election_lab::meta::k;
use election_lab::protocols::recorded::{self, Imported};
use election_lab::protocols::{conform, events};
use election_lab::{registry, Engine};
use std::rc::Rc;

impl State {
    /// Several files: one JSON scenario or trace is imported as before; logs are read by the
    /// importer of their kind. A file the browser could not read is refused by name.
    pub(super) fn import_bytes(&mut self, files: Vec<(String, Option<Vec<u8>>)>) -> bool {
        let mut texts = Vec::with_capacity(files.len());
        for (name, bytes) in &files {
            let Some(b) = bytes else { return self.refuse_import(k::UI_IMPORT_UNREADABLE.format(self.lang, &[name])) };
            texts.push((name.clone(), String::from_utf8_lossy(b).into_owned()));
        }
        // A scenario must be UTF-8, as the command line requires; logs are read as it reads
        // them, a damaged byte replaced.
        if is_scenario(&texts) {
            if let Err(e) = std::str::from_utf8(files[0].1.as_deref().unwrap_or_default()) {
                return self.refuse_import(k::UI_IMPORT_NOT_UTF8.format(self.lang, &[&files[0].0, &e.valid_up_to()]));
            }
        }
        self.import_files(texts)
    }

    /// An import refused with `why`: the alert says so and nothing else changes.
    fn refuse_import(&mut self, why: String) -> bool {
        self.messages.alert = Some(k::UI_IMPORT_FAILED.format(self.lang, &[&why]));
        true
    }

    pub(super) fn import_files(&mut self, files: Vec<(String, String)>) -> bool {
        if let Some(changed) = self.assignment_from_files(&files) {
            return changed;
        }
        let lang = self.lang;
        if is_scenario(&files) {
            let text = files.into_iter().next().map(|f| f.1).unwrap_or_default();
            return self.reduce_import(text);
        }
        let result = read_logs(&files, lang).and_then(|(system, imp)| {
            let e = Engine::from_trace_value(&imp.scenario).map_err(|e| e.to_string())?;
            Ok((system, imp.report, e))
        });
        let mut summary = String::new();
        let result = result.map(|(system, report, e)| {
            let first = report.damaged.first().map(|d| k::UI_LOGS_FIRST_DAMAGED.format(lang, &[d])).unwrap_or_default();
            summary = k::UI_LOGS_IMPORTED.format(
                lang,
                &[&files.len(), &system, &report.matched, &report.skipped, &report.damaged.len(), &first],
            );
            e
        });
        let ok = self.load(result, None, |e| k::UI_IMPORT_FAILED.format(lang, &[&e]));
        if ok {
            self.messages.alert = None;
            self.messages.notice = Some(summary);
            self.conformance = conform::conform(&self.scenario, None).ok().map(Rc::new);
        }
        ok
    }

    /// Compare lanes: the recorded run and the textbook algorithm its system implements.
    pub(super) fn replay_model(&mut self) -> bool {
        let id = self.scenario.algorithm.clone();
        let (Some(source), Some(real)) = (recorded::source_of(&id), registry::find(&id)) else {
            return false;
        };
        let Some(model) = registry::find(source.model) else { return false };
        self.take_lanes();
        self.open_compare(vec![real, model])
    }
}

/// One JSON file that is no cluster's log: a scenario or trace to import.
fn is_scenario(files: &[(String, String)]) -> bool {
    files.len() == 1
        && files[0].1.trim_start().starts_with('{')
        && !events::is_events(&files[0].1)
        && !is_log(&files[0].1)
}

/// Whether a text is a log a shipped mapping reads (etcd's JSON logger writes JSON lines).
#[cfg(feature = "mappings")]
fn is_log(text: &str) -> bool {
    recorded::detect(&[LogFile { name: "", text }]).is_some()
}

#[cfg(not(feature = "mappings"))]
fn is_log(_: &str) -> bool {
    false
}

/// The recorded run the files make, and what read them (see the module's doc).
fn read_logs(files: &[(String, String)], lang: Lang) -> Result<(String, Imported), String> {
    if let [(name, text)] = files {
        if events::is_events(text) {
            return events::import(name, text).map(|imp| (events::FORMAT.to_string(), imp));
        }
    }
    #[cfg(feature = "mappings")]
    if let Some(i) = files.iter().position(|f| Mapping::is_mapping(&f.1)) {
        let m = Mapping::read(&files[i].1).map_err(|e| format!("{}: {e}", files[i].0))?;
        let rest: Vec<(String, String)> = files.iter().enumerate().filter(|f| f.0 != i).map(|f| f.1.clone()).collect();
        let system = k::UI_LOGS_MAPPING.format(lang, &[&m.system, &files[i].0]);
        return m.import(&as_logs(&rest)).map(|imp| (system, imp));
    }
    #[cfg(feature = "mappings")]
    if let Some((name, m)) = Mapping::best(&as_logs(files)) {
        let system = k::UI_LOGS_MAPPING.format(lang, &[&m.system, &name]);
        return m.import(&as_logs(files)).map(|imp| (system, imp));
    }
    Err(tr(lang, k::UI_THESE_FILES_ARE_NEITHER_A).to_string())
}

#[cfg(feature = "mappings")]
use election_lab::protocols::events::mapping::Mapping;
#[cfg(feature = "mappings")]
use election_lab::protocols::recorded::LogFile;

#[cfg(feature = "mappings")]
fn as_logs(files: &[(String, String)]) -> Vec<LogFile<'_>> {
    files.iter().map(|(name, text)| LogFile { name, text }).collect()
}

/// While a recorded member that leads is paused (a frozen process), it is no acting leader: the
/// banner tells the stale-leader story, not a split brain ("N1 is paused and still believes it
/// leads; N2 leads now."), when another member leads meanwhile. Two acting leaders stay a split
/// brain; a paused leader that resumes still leading acts again, and is counted again.
pub fn paused_leader_text(frame: &election_lab::run::Frame, lang: Lang) -> Option<String> {
    let paused: Vec<u32> =
        frame.nodes.iter().filter(|n| n.up && n.view.paused && n.view.is_leader()).map(|n| n.id).collect();
    (!paused.is_empty() && frame.leaders.len() == 1)
        .then(|| k::UI_PAUSED_LEADER.format(lang, &[&crate::nodes_text(&paused), &crate::nodes_text(&frame.leaders)]))
}

/// Recorded members each acting as leader of a *different* term at once: the older ones lead a
/// stale term (a Sentinel still running epoch 1's failover after epoch 2's leader was elected:
/// it ends only with `+failover-end` or an abort), which is not two leaders of one term — the
/// monitor of one leader per term does not flag it, and the banner says what it is instead of
/// "split brain" ("N2 still leads the older epoch 1…; N1 leads epoch 2"). Leaders of one term
/// stay a split brain.
pub fn stale_term_text(frame: &election_lab::run::Frame, lang: Lang) -> Option<String> {
    let mut led: Vec<(u64, u32)> = Vec::new();
    for &l in &frame.leaders {
        led.push((frame.nodes.iter().find(|n| n.id == l)?.view.term?, l));
    }
    led.sort_unstable();
    let (newest, leader) = *led.last()?;
    let stale = &led[..led.len() - 1];
    if stale.is_empty() || stale.iter().any(|s| s.0 == newest) || led.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    let nodes: Vec<u32> = stale.iter().map(|s| s.1).collect();
    let terms: Vec<String> = stale.iter().map(|s| s.0.to_string()).collect();
    Some(k::UI_STALE_TERM_LEADER.format(
        lang,
        &[&crate::nodes_text(&nodes), &terms.join(", "), &crate::nodes_text(&[leader]), &newest.to_string()],
    ))
}
