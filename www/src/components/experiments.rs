//! The experiments view: the ready-made experiments (`experiment::READY`, so a new file in
//! `experiments/` appears here without a change to this code), one of them described, its trial
//! count and spec editable, and a sweep run a few milliseconds per animation frame with a
//! progress bar and a cancel button; then the plot, the summary table and the downloads — the
//! same plot and CSV as `election-lab sweep --svg` / `--summary` for the same spec.

use crate::anim::FrameLoop;
use crate::i18n::{tr, Lang};
use crate::state::Action;
use election_lab::experiment::{Sweep, READY};
use election_lab::meta::k;
use serde_json::Value;
use yew::prelude::*;

/// Most trials per line the field accepts.
pub const MAX_TRIALS: u64 = 10_000;
/// Work per animation frame, in milliseconds: the page keeps drawing at its frame rate.
const BUDGET_MS: f64 = 10.0;

/// The ready-made spec of experiment `id` (the first one if `id` is unknown).
pub fn spec_of(id: &str) -> &'static str {
    READY.iter().find(|r| r.0 == id).unwrap_or(&READY[0]).1
}

/// A spec's title in `lang` (a text or `{"en": ..., "zh": ...}`), else `id`.
pub fn title_of(spec: &Value, lang: Lang, id: &str) -> String {
    let t = &spec["title"];
    t.as_str().or_else(|| t[lang.tag()].as_str()).unwrap_or(id).to_string()
}

/// The trials a spec gives each line that does not set its own: its `seeds.count` (default 1).
pub fn trials_of(spec: &Value) -> u64 {
    spec["seeds"]["count"].as_u64().unwrap_or(1)
}

/// `spec` with `trials` random seeds for each line that does not set its own count (its
/// `seeds.count`; the first seed, `seeds.start`, is kept).
pub fn with_trials(spec: &mut Value, trials: u64) {
    if let Some(o) = spec.as_object_mut() {
        let seeds = o.entry("seeds").or_insert(Value::Null);
        if seeds.is_null() {
            *seeds = Value::Object(Default::default());
        }
        if !seeds.is_object() {
            // Left as it is: the spec's reader names the field.
            return;
        }
        seeds["count"] = trials.into();
    }
}

/// The trial count typed in the field, or why not (naming the field).
pub fn parse_trials(text: &str, lang: Lang) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=MAX_TRIALS).contains(&n) => Ok(n),
        _ => Err(k::UI_TRIALS_INVALID.format(lang, &[&MAX_TRIALS, &text.trim()])),
    }
}

/// The sweep the view would run: the spec text with the trial count applied, read and checked
/// (every error names its field).
pub fn plan(spec: &str, trials: &str, lang: Lang) -> Result<Sweep, String> {
    let mut v: Value =
        serde_json::from_str(spec).map_err(|e| format!("{}{e}", tr(lang, k::UI_SPEC_JSON_NOT_VALID_JSON)))?;
    let n = parse_trials(trials, lang)?;
    with_trials(&mut v, n);
    Sweep::from_value(&v).map_err(|e| format!("{}{e}", tr(lang, k::UI_SPEC_JSON)))
}

/// A number for the summary table: whole numbers as they are, others with two decimals.
fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// The summary as table rows in `lang`: line, N, runs, runs with a value, mean, median, p90,
/// max, theory (the CSV download has every column).
fn summary_rows(s: &Sweep, lang: Lang) -> Vec<Vec<String>> {
    let flag = s.measure.is_flag();
    let show = |x: f64| if flag { format!("{:.1} %", x * 100.0) } else { num(x) };
    s.summary()
        .iter()
        .map(|g| {
            let st =
                |f: fn(&election_lab::experiment::Stats) -> f64| g.stats.as_ref().map_or(String::new(), |x| show(f(x)));
            vec![
                s.lines()[g.line].label.get(lang).to_string(),
                g.nodes.to_string(),
                g.runs.to_string(),
                g.stats.as_ref().map_or(0, |x| x.n).to_string(),
                st(|x| x.mean),
                st(|x| x.median),
                st(|x| x.p90),
                st(|x| x.max),
                g.theory.map_or(String::new(), |t| t.to_string()),
            ]
        })
        .collect()
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

#[derive(Properties, PartialEq)]
pub struct ExperimentsProps {
    /// The experiment shown (an id of `READY`).
    pub id: &'static str,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// The view: the list of ready-made experiments and the chosen one.
#[function_component]
pub fn Experiments(p: &ExperimentsProps) -> Html {
    let l = p.lang;
    let titles = use_memo(l, |&l| {
        READY
            .iter()
            .map(|(id, text)| (*id, title_of(&serde_json::from_str(text).unwrap_or_default(), l, id)))
            .collect::<Vec<_>>()
    });
    let items = titles.iter().map(|(id, title)| {
        let id: &'static str = id;
        let chosen = id == p.id;
        html! {
            <li><button class={classes!("exp-item", chosen.then_some("chosen"))} aria-pressed={chosen.to_string()} data-experiment={id}
                        onclick={p.on.reform(move |_| Action::PickExperiment(id))}>{ title.clone() }</button></li>
        }
    });
    html! {
        <section class="experiments" data-testid="experiments" aria-label={tr(l, k::UI_EXPERIMENTS_2)}>
            <div class="exp-head">
                <div>
                    <h2>{ tr(l, k::UI_EXPERIMENTS_2) }</h2>
                    <p class="exp-intro">{ tr(l, k::UI_AN_EXPERIMENT_RUNS_ONE_SCENARIO) }</p>
                </div>
                <button class="exp-close" data-testid="experiments-close" onclick={p.on.reform(|_| Action::CloseExperiments)}
                        title={tr(l, k::UI_BACK_TO_THE_SIMULATOR_AS)}>{ tr(l, k::UI_BACK_TO_THE_SIMULATOR) }</button>
            </div>
            <div class="exp-body">
                <nav class="exp-list" aria-label={tr(l, k::UI_READY_MADE_EXPERIMENTS)}><ul>{ for items }</ul></nav>
                <ExperimentPane key={p.id} id={p.id} lang={l} on={p.on.clone()} />
            </div>
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct PaneProps {
    pub id: &'static str,
    pub lang: Lang,
    pub on: Callback<Action>,
}

#[derive(Clone, Debug, PartialEq)]
enum Phase {
    Idle,
    Running,
    Cancelled,
    /// Run number `run` finished in `ms` milliseconds.
    Done {
        run: u64,
        ms: f64,
    },
    Failed(String),
}

/// One experiment: what it is, its trial count and spec, Run / Cancel, progress, then the
/// results. Keyed by the experiment, so choosing another starts afresh (and drops a sweep in
/// progress with its frame loop).
#[function_component]
fn ExperimentPane(p: &PaneProps) -> Html {
    let l = p.lang;
    let id = p.id;
    let spec = use_state(|| spec_of(id).to_string());
    let trials = use_state(|| trials_of(&serde_json::from_str(spec_of(id)).unwrap_or_default()).to_string());
    let phase = use_state(|| Phase::Idle);
    let progress = use_state(|| (0u64, 0u64));
    let sweep = use_mut_ref(|| None::<Sweep>);
    let frames = use_mut_ref(FrameLoop::new);
    let runs = use_mut_ref(|| 0u64);
    {
        // Leaving the view (or choosing another experiment) stops the loop at once.
        let frames = frames.clone();
        use_effect_with((), move |_| move || frames.borrow_mut().stop());
    }
    // What the spec would run, re-read as it is edited.
    let planned = use_memo(((*spec).clone(), (*trials).clone(), l), |(s, t, l)| {
        plan(s, t, *l).map(|sw| {
            let lines: Vec<String> = sw.lines().iter().map(|x| x.label.get(*l).to_string()).collect();
            (sw.progress().total, lines, sw.measure.label().get(*l).to_string(), sw.title.get(*l).to_string())
        })
    });
    let running = *phase == Phase::Running;

    let on_run = {
        let (spec, trials, phase, progress, sweep, frames, runs) = (
            spec.clone(),
            trials.clone(),
            phase.clone(),
            progress.clone(),
            sweep.clone(),
            frames.clone(),
            runs.clone(),
        );
        Callback::from(move |_: MouseEvent| {
            frames.borrow_mut().stop();
            let built = match plan(&spec, &trials, l) {
                Ok(s) => s,
                Err(e) => {
                    *sweep.borrow_mut() = None;
                    phase.set(Phase::Failed(e));
                    return;
                }
            };
            let total = built.progress().total;
            *sweep.borrow_mut() = Some(built);
            *runs.borrow_mut() += 1;
            let run = *runs.borrow();
            progress.set((0, total));
            phase.set(Phase::Running);
            let (sweep, set_progress, set_phase) = (sweep.clone(), progress.setter(), phase.setter());
            let started = now();
            frames.borrow_mut().start_while(move |_| {
                let mut held = sweep.borrow_mut();
                let Some(s) = held.as_mut() else { return false };
                let t0 = now();
                let mut done = s.progress();
                while !done.finished() {
                    done = s.advance(1);
                    if now() - t0 >= BUDGET_MS {
                        break;
                    }
                }
                set_progress.set((done.done, done.total));
                if done.finished() {
                    set_phase.set(Phase::Done { run, ms: now() - started });
                }
                !done.finished()
            });
        })
    };
    let on_cancel = {
        let (phase, progress, sweep, frames) = (phase.clone(), progress.clone(), sweep.clone(), frames.clone());
        Callback::from(move |_: MouseEvent| {
            frames.borrow_mut().stop();
            if let Some(s) = sweep.borrow_mut().take() {
                let at = s.progress();
                progress.set((at.done, at.total));
            }
            phase.set(Phase::Cancelled);
        })
    };
    let on_trials = {
        let trials = trials.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(i) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
                trials.set(i.value());
            }
        })
    };
    let on_spec = {
        let spec = spec.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(t) = e.target_dyn_into::<web_sys::HtmlTextAreaElement>() {
                spec.set(t.value());
            }
        })
    };
    let on_restore = {
        let spec = spec.clone();
        Callback::from(move |_: MouseEvent| spec.set(spec_of(id).to_string()))
    };
    // The finished sweep's plot and table, in the page's language.
    let done_run = match *phase {
        Phase::Done { run, .. } => Some(run),
        _ => None,
    };
    let results = use_memo((done_run, l), {
        let sweep = sweep.clone();
        move |&(run, l)| run.and_then(|_| sweep.borrow().as_ref().map(|s| (s.svg(l), summary_rows(s, l))))
    });
    let download = |what: &'static str| {
        let (sweep, results) = (sweep.clone(), results.clone());
        Callback::from(move |_: MouseEvent| {
            let held = sweep.borrow();
            let Some(s) = held.as_ref() else { return };
            match what {
                // The plot on the page is the file: no second rendering.
                "svg" => {
                    if let Some((svg, _)) = results.as_ref() {
                        crate::effects::download_as(&format!("{id}.svg"), svg, "image/svg+xml");
                    }
                }
                "csv" => crate::effects::download_as(&format!("{id}.csv"), &s.summary_csv(), "text/csv"),
                _ => crate::effects::download_as(&format!("{id}-runs.csv"), &s.csv(), "text/csv"),
            }
        })
    };

    let about = match &*planned {
        Ok((total, lines, measure, title)) => html! {
            <>
                <h3 data-testid="experiment-title">{ title.clone() }</h3>
                <dl class="kv exp-about">
                    <dt>{ tr(l, k::UI_MEASURES) }</dt><dd>{ measure.clone() }</dd>
                    <dt>{ tr(l, k::UI_LINES) }</dt><dd>{ format!("{} — {}", lines.len(), lines.join(" · ")) }</dd>
                    <dt>{ tr(l, k::UI_RUNS_IN_ALL) }</dt><dd data-testid="experiment-total">{ total }</dd>
                </dl>
            </>
        },
        Err(_) => {
            html! { <h3 data-testid="experiment-title">{ title_of(&serde_json::from_str(spec_of(id)).unwrap_or_default(), l, id) }</h3> }
        }
    };
    let input_error: Option<String> = match &*planned {
        Err(e) => Some(e.clone()),
        Ok(_) => None,
    };
    let (done, total) = *progress;
    let status = match &*phase {
        Phase::Idle => html! {},
        Phase::Running => {
            html! { <p class="exp-status">{ tr(l, k::UI_RUNNING_THE_PAGE_STAYS_USABLE) }</p> }
        }
        Phase::Cancelled => html! {
            <p class="exp-status" data-testid="experiment-status">{ k::UI_SWEEP_CANCELLED.format(l, &[&done, &total]) }</p>
        },
        Phase::Done { ms, .. } => html! {
            <p class="exp-status" data-testid="experiment-status">{ k::UI_SWEEP_FINISHED.format(l, &[&total, &format!("{:.2}", ms / 1000.0)]) }</p>
        },
        Phase::Failed(e) => {
            html! { <p class="banner error" role="alert" data-testid="experiment-error">{ e.clone() }</p> }
        }
    };
    let bar = match *phase {
        Phase::Running | Phase::Cancelled | Phase::Done { .. } => {
            let pct = if total == 0 { 100.0 } else { done as f64 * 100.0 / total as f64 };
            html! {
                <div class="exp-progress">
                    <div class="exp-bar" role="progressbar" data-testid="experiment-progress" aria-label={tr(l, k::UI_PROGRESS)}
                         aria-valuemin="0" aria-valuemax={total.to_string()} aria-valuenow={done.to_string()}>
                        <div class="exp-bar-fill" style={format!("width:{pct:.1}%")}></div>
                    </div>
                    <span class="exp-count">{ k::UI_SWEEP_COUNT.format(l, &[&done, &total]) }</span>
                </div>
            }
        }
        _ => html! {},
    };
    let shown = match &*results {
        Some((svg, rows)) => {
            let heads = [
                tr(l, k::UI_LINE),
                "N",
                tr(l, k::UI_RUNS),
                tr(l, k::UI_WITH_A_VALUE),
                tr(l, k::UI_MEAN),
                tr(l, k::UI_MEDIAN),
                tr(l, k::UI_90TH_PCT),
                tr(l, k::UI_MAX),
                tr(l, k::UI_THEORY),
            ];
            html! {
                <div class="exp-results">
                    <div class="exp-plot" data-testid="experiment-plot" role="img" aria-label={tr(l, k::UI_PLOT_OF_THE_EXPERIMENT)}>
                        { Html::from_html_unchecked(AttrValue::from(svg.clone())) }
                    </div>
                    <div class="exp-downloads">
                        <button data-testid="experiment-download-svg" onclick={download("svg")}>{ tr(l, k::UI_DOWNLOAD_SVG) }</button>
                        <button data-testid="experiment-download-csv" onclick={download("csv")}>{ tr(l, k::UI_DOWNLOAD_CSV_SUMMARY) }</button>
                        <button data-testid="experiment-download-runs" onclick={download("runs")}>{ tr(l, k::UI_DOWNLOAD_CSV_EVERY_RUN) }</button>
                    </div>
                    <p class="exp-caption">{ tr(l, k::UI_SUMMARY_ONE_ROW_PER_LINE) }</p>
                    <div class="exp-table">
                        <table data-testid="experiment-summary">
                            <thead><tr>{ for heads.iter().map(|h| html!{ <th scope="col">{ *h }</th> }) }</tr></thead>
                            <tbody>{ for rows.iter().map(|r| html!{ <tr>{ for r.iter().map(|c| html!{ <td>{ c.clone() }</td> }) }</tr> }) }</tbody>
                        </table>
                    </div>
                    { super::runs_table::runs_table(&sweep, l, &p.on) }
                </div>
            }
        }
        None => html! {},
    };
    let run_label = match *phase {
        Phase::Idle | Phase::Failed(_) | Phase::Running => tr(l, k::UI_RUN),
        _ => tr(l, k::UI_RUN_AGAIN),
    };
    html! {
        <div class="exp-pane" data-experiment={id}>
            { about }
            <div class="exp-form">
                <label class="exp-trials">{ tr(l, k::UI_TRIALS_PER_LINE_RANDOM_SEEDS) }
                    <input type="text" inputmode="numeric" size="7" data-testid="experiment-trials" value={(*trials).clone()} oninput={on_trials}
                           aria-invalid={input_error.is_some().to_string()} disabled={running} />
                </label>
                <span class="exp-hint">{ k::UI_TRIALS_HINT.format(l, &[&MAX_TRIALS]) }</span>
                <div class="exp-actions">
                    <button class="primary" data-testid="experiment-run" onclick={on_run} disabled={running || input_error.is_some()}>{ run_label }</button>
                    { if running { html!{ <button data-testid="experiment-cancel" onclick={on_cancel}>{ tr(l, k::UI_CANCEL) }</button> } } else { html!{} } }
                </div>
            </div>
            { match &input_error { Some(e) => html!{ <p class="banner error" role="alert" data-testid="experiment-error">{ e.clone() }</p> }, None => html!{} } }
            <details class="exp-spec">
                <summary>{ tr(l, k::UI_SPEC_JSON_EDIT_IT_TO) }</summary>
                <textarea rows="14" spellcheck="false" data-testid="experiment-spec" value={(*spec).clone()} oninput={on_spec} disabled={running}
                          aria-label={tr(l, k::UI_SPEC_JSON_2)} />
                <button onclick={on_restore} disabled={running}>{ tr(l, k::UI_RESTORE_THE_READY_MADE_SPEC) }</button>
            </details>
            { bar }
            { status }
            { shown }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ready_experiment_has_a_title_in_both_languages_and_plans() {
        for (id, text) in READY {
            let v: Value = serde_json::from_str(text).unwrap();
            assert_ne!(title_of(&v, Lang::En, id), *id, "{id}: a title");
            assert_ne!(title_of(&v, Lang::Zh, id), *id, "{id}: a Chinese title");
            let t = trials_of(&v).to_string();
            let s = plan(text, &t, Lang::En).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert!(s.progress().total > 0, "{id}: runs");
        }
    }

    #[test]
    fn the_trial_count_sets_the_default_seeds_and_lines_with_their_own_keep_them() {
        let text = spec_of("raft-figure-16-randomness");
        let v: Value = serde_json::from_str(text).unwrap();
        assert_eq!(trials_of(&v), 1000);
        // Six lines; the first sets 100 seeds of its own.
        assert_eq!(plan(text, "1000", Lang::En).unwrap().progress().total, 100 + 5 * 1000);
        assert_eq!(plan(text, " 7 ", Lang::En).unwrap().progress().total, 100 + 5 * 7);
        let mut w = v.clone();
        with_trials(&mut w, 3);
        assert_eq!(w["seeds"], serde_json::json!({"count": 3}));
        // A spec without seeds gets them, and the first seed is kept when given.
        let mut w = serde_json::json!({"seeds": {"count": 5, "start": 40}});
        with_trials(&mut w, 2);
        assert_eq!(w["seeds"], serde_json::json!({"count": 2, "start": 40}));
        let mut w = serde_json::json!({});
        with_trials(&mut w, 2);
        assert_eq!(w["seeds"]["count"], 2);
    }

    #[test]
    fn bad_input_is_refused_naming_the_field() {
        let text = spec_of("one-partition");
        for bad in ["0", "", "abc", "-3", "10001", "2.5"] {
            let e = plan(text, bad, Lang::En).unwrap_err();
            assert!(e.starts_with("Trials per line: enter a whole number from 1 to 10000"), "{bad}: {e}");
        }
        assert!(plan(text, "x", Lang::Zh).unwrap_err().starts_with("每条数据系列的试验次数"));
        assert!(plan("{", "3", Lang::En).unwrap_err().starts_with("Spec (JSON): not valid JSON"));
        let e = plan(&text.replace("\"minority_leaders\"", "\"speed\""), "3", Lang::En).unwrap_err();
        assert!(e.starts_with("Spec (JSON): measure: unknown measure 'speed'"), "{e}");
        assert!(plan("[1]", "3", Lang::En).is_err());
        assert!(plan("{\"seeds\": 4}", "3", Lang::En).unwrap_err().contains("seeds"));
    }

    #[test]
    fn the_summary_rows_follow_the_sweep() {
        let mut s = plan(spec_of("one-partition"), "2", Lang::Zh).unwrap();
        while !s.advance(50).finished() {}
        let rows = summary_rows(&s, Lang::Zh);
        assert_eq!(rows.len(), s.summary().len());
        assert_eq!(rows[0][0], s.lines()[0].label.zh);
        assert_eq!(rows[0][2], "2");
        assert_eq!(num(3.0), "3");
        assert_eq!(num(0.126), "0.13");
    }
}
