//! What a page opens with besides its run (the experiments view, the event log's filter), the
//! link it writes back, and a scenario or trace imported as text.

use super::{ready_experiment, LogFilter, State, UrlKey};
use crate::i18n::{tr, Lang};
use crate::link;
use election_lab::meta::k;
use election_lab::{presets, Engine};
use std::rc::Rc;

/// What a query asks of the lesson player: `?lesson=<id or packed lesson>` a lesson, an empty
/// `?lesson=` the course list.
pub fn lesson_asked(query: &str) -> Option<String> {
    link::params(query).into_iter().find(|(k, _)| k == "lesson").map(|(_, v)| v)
}

impl State {
    /// The query for the current state, with the selected node (a viewing aid, kept on reload).
    pub fn query(&self, embed: bool) -> String {
        let mut q = match self.lanes() {
            // Two runs of one algorithm: the link opens the run kept (the lanes are one click away).
            Some(c) if c.runs.is_some() => link::write(&c.anchor().engine.get(), self.preset, embed),
            Some(c) => link::write_compare(&c.algorithms(), &c.anchor().engine.get(), self.preset, c.time, embed),
            None => link::write(&self.engine.get(), self.preset, embed) + self.log_filter.query().as_str(),
        };
        if let Some(id) = self.selection.selected {
            q.push_str(&format!("&sel={id}"));
        }
        if self.lang_chosen {
            q.push_str(&format!("&lang={}", self.pending_lang.unwrap_or(self.lang).tag()));
        }
        if let Some(pane) = self.experiments() {
            q.push_str(&format!("&experiment={}", pane.id));
        }
        if let Some(l) = &self.lesson {
            q.push_str(&format!("&lesson={}", link::encode(l)));
        }
        if self.present {
            q.push_str("&present=1");
        }
        q
    }

    /// The query that opens preset `id` as this page stands (its language, an embed).
    pub(super) fn preset_query(&self, id: &str) -> String {
        let mut q = format!("?preset={}", link::encode(id));
        if self.embed {
            q.push_str("&embed=1");
        }
        if self.lang_chosen {
            q.push_str(&format!("&lang={}", self.pending_lang.unwrap_or(self.lang).tag()));
        }
        q
    }

    /// What changes the page's URL; the URL is rewritten only when this does.
    pub fn url_key(&self) -> UrlKey {
        // Comparing lanes at play, the address is written when the clock stops (or a fault is
        // made), not at every tick: four lanes change at almost every animation frame.
        let rev = match (self.lanes(), self.playback.playing) {
            (Some(c), true) => c.faults_len() as u64,
            _ => self.engine.rev,
        };
        (
            self.gen,
            rev,
            self.selection.selected,
            self.pending_lang.unwrap_or(self.lang),
            self.experiments().map(|p| p.id),
            self.lesson.clone(),
            self.present,
        )
    }

    /// The state a page opens with, from its query string (`?preset=…&step=…&sel=…&lang=…`)
    /// and the browser's language.
    pub fn open_in(query: &str, browser_lang: Option<&str>) -> State {
        let ps = link::params(query);
        let asked = ps.iter().find(|(k, _)| k == "lang").map(|(_, v)| v.as_str());
        let mut s = State::open(query);
        s.lang = crate::i18n::initial(asked, browser_lang);
        s.lang_chosen = asked.and_then(Lang::parse).is_some();
        if !election_lab::meta::ready(s.lang) {
            // English until the catalog of the language asked for has arrived.
            s.pending_lang = Some(s.lang);
            s.lang = Lang::En;
        }
        if s.embed {
            s.origin = Some(Rc::new(query.to_string()));
        }
        // A projector's link (`present=1`); an embed stays an embed.
        s.present = !s.embed && ps.iter().any(|(k, v)| k == "present" && matches!(v.as_str(), "1" | "true" | ""));
        if crate::WORKBENCH {
            s.experiment_from_link(&ps);
        }
        s.log_filter_from_link(&ps);
        s.refresh();
        s
    }

    /// The state a page opens with, from its query string (`?preset=…&step=…&sel=…`).
    pub fn open(query: &str) -> State {
        let default = || {
            let p = presets::find(presets::DEFAULT).expect("default preset");
            (Engine::new(p.scenario()).expect("valid preset"), Some(p.id))
        };
        // A script's run is rebuilt in slices (`slices.rs`), a fresh run of its scenario shown
        // meanwhile; compare mode reads the link again for its lanes, at once.
        let compare = link::params(query).iter().any(|(k, _)| k == "compare");
        let read = match compare || !crate::WORKBENCH {
            true => link::read(query).map(|l| l.map(|l| (l, None))),
            false => link::read_later(query),
        };
        let mut later = None;
        // A player of one family opens another family's link (or one it cannot read) in the full
        // player, which shows it or says what is wrong with it.
        let elsewhere = super::handoff::FAMILY.is_some() && read.is_err();
        let (engine, preset, embed, alert) = match read {
            Ok(Some((l, job))) => match super::limits::refusal(l.engine.scenario().nodes.len(), Lang::En) {
                None => {
                    let shown = match job {
                        Some(job) => match Engine::new(l.engine.scenario().clone()) {
                            Ok(shown) => {
                                later = Some((l.engine, job));
                                shown
                            }
                            // (Not seen: the scenario was just built.) Then at once.
                            Err(_) => {
                                let (mut engine, mut job) = (l.engine, job);
                                let _ = engine.replay_some(&mut job, u64::MAX);
                                engine
                            }
                        },
                        None => l.engine,
                    };
                    (shown, l.preset, l.embed, l.clamped)
                }
                Some(why) => {
                    let (e, p) = default();
                    (e, p, l.embed, Some(why))
                }
            },
            Ok(None) => {
                // `?lesson=…&embed=1` names no scenario (the lesson brings it) but is an embed.
                let (e, p) = default();
                (e, p, link::params(query).iter().any(|(k, v)| k == "embed" && v == "1"), None)
            }
            Err(msg) => {
                let (e, p) = default();
                let embed = link::params(query).iter().any(|(k, v)| k == "embed" && v == "1");
                (e, p, embed, Some(format!("{msg}. Showing the default scenario instead.")))
            }
        };
        let mut s = State::new(engine, preset, embed);
        s.messages.alert = alert;
        if let Some((engine, job)) = later {
            let asked = link::params(query).iter().find(|(k, _)| k == "step").and_then(|(_, v)| v.trim().parse().ok());
            s.rebuild_later(engine, job, super::slices::Then::Link(asked));
        }
        // A lesson, in a build without the lesson player: the bundle that has one opens the query.
        let lesson_elsewhere = !crate::LESSONS && lesson_asked(query).is_some();
        match crate::WORKBENCH {
            true => {
                s.compare_from_link(query);
                s.script_from_link(&link::params(query));
                s.assignment_from_link(&link::params(query));
            }
            false if lesson_elsewhere => {}
            false => s.hand_off_link(query),
        }
        if elsewhere || lesson_elsewhere {
            s.messages.alert = None;
            s.elsewhere(query);
        }
        s.selection.selected = link::params(query)
            .iter()
            .find(|(k, _)| k == "sel")
            .and_then(|(_, v)| v.parse::<u32>().ok())
            .filter(|id| s.scenario.nodes.contains(id));
        s
    }

    /// `?experiment=<id>` opens the experiments view on that experiment; an unknown id is
    /// named in a notice, and the simulator opens as usual.
    pub(super) fn experiment_from_link(&mut self, ps: &[(String, String)]) {
        let Some((_, id)) = ps.iter().find(|(k, _)| k == "experiment") else { return };
        if self.embed {
            return;
        }
        match ready_experiment(id) {
            Some(id) => {
                self.open_experiments(id);
            }
            None => {
                let known: Vec<&str> = election_lab::experiment::READY.iter().map(|r| r.0).collect();
                let list = known.join(tr(self.lang, k::UI_LIST_SEPARATOR));
                self.messages.notice = Some(k::UI_NO_SUCH_EXPERIMENT.format(self.lang, &[&id, &list]));
            }
        }
    }

    /// `?log=node:3&log=type:deliver` narrows the event log; what is not understood is named.
    pub(super) fn log_filter_from_link(&mut self, ps: &[(String, String)]) {
        let values: Vec<&str> = ps.iter().filter(|(k, _)| k == "log").map(|(_, v)| v.as_str()).collect();
        if values.is_empty() {
            return;
        }
        let (f, bad) = LogFilter::read(&values, &self.engine.get());
        self.log_filter = Rc::new(f);
        if !bad.is_empty() {
            self.messages.notice =
                Some(format!("{} {}", tr(self.lang, k::UI_EVENT_LOG_FILTER_IGNORED), bad.join("; ")));
        }
    }

    /// A scenario or trace as JSON text.
    pub(super) fn reduce_import(&mut self, text: String) -> bool {
        if !crate::WORKBENCH && election_lab::engine::is_jsonl(&text) {
            // The JSON Lines of `run --trace` (pasted in the scenario editor): the workbench reads them.
            return self.hand_off(super::Action::Import(text));
        }
        let (kept, nodes) = (self.run_kept(), self.scenario.nodes.clone());
        let result = link::trace_engine(&text).map_err(|e| e.to_string());
        let lang = self.lang;
        let ok = self.load(result, None, |e| k::UI_IMPORT_FAILED_NOTHING_CHANGED.format(lang, &[&e]));
        // A trace with breakpoints (outside a lesson, which resumes its own runs): the workbench
        // lists them and plays to them, as it does for a link that carries them.
        if ok && !crate::WORKBENCH && self.lesson.is_none() && !self.engine.get().until().is_empty() {
            self.hand_off(super::Action::Import(text));
            return true;
        }
        if ok {
            self.messages.alert = None;
            self.messages.notice = Some(tr(self.lang, k::UI_IMPORTED).into());
            // A run of the same nodes can be compared with the one it replaced.
            self.offer = kept.filter(|_| self.scenario.nodes == nodes).map(Rc::new);
        }
        ok
    }
}
