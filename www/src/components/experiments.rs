//! The experiments view: the ready-made experiments (`experiment::READY`, so a new file in
//! `experiments/` appears here without a change to this code), one of them described, its trial
//! count and spec editable, and a sweep run in the page's Web Worker (`crate::worker`; the pane's
//! state is the reducer's, `state::experiments`) with a progress bar and a cancel button; then the
//! plot, the summary table and the downloads — the same plot and CSV as `election-lab sweep --svg`
//! / `--summary` for the same spec.

use crate::i18n::{tr, Lang};
use crate::state::experiments::{plan, spec_of, title_of, Finished, Pane, Phase, MAX_TRIALS};
use crate::state::Action;
use election_lab::experiment::{Sweep, READY};
use election_lab::meta::k;
use yew::prelude::*;

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

#[derive(Properties, PartialEq)]
pub struct ExperimentsProps {
    /// The experiment shown and its sweep.
    pub pane: Pane,
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
        let chosen = id == p.pane.id;
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
                <ExperimentPane pane={p.pane.clone()} lang={l} on={p.on.clone()} />
            </div>
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct PaneProps {
    pub pane: Pane,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// One experiment: what it is, its trial count and spec, Run / Cancel, progress, then the
/// results.
#[function_component]
fn ExperimentPane(p: &PaneProps) -> Html {
    let l = p.lang;
    let pane = &p.pane;
    let id = pane.id;
    // What the spec would run, re-read as it is edited.
    let planned = use_memo((pane.spec.clone(), pane.trials.clone(), l), |(s, t, l)| {
        plan(s, t, *l).map(|sw| {
            let lines: Vec<String> = sw.lines().iter().map(|x| x.label.get(*l).to_string()).collect();
            (sw.progress().total, lines, sw.measure.label().get(*l).to_string(), sw.title.get(*l).to_string())
        })
    });
    let running = pane.running();
    let on_run = p.on.reform(|_: MouseEvent| Action::RunSweep);
    let on_cancel = p.on.reform(|_: MouseEvent| Action::CancelSweep);
    let on_trials = p.on.reform(|e: InputEvent| {
        Action::SetTrials(e.target_dyn_into::<web_sys::HtmlInputElement>().map(|i| i.value()).unwrap_or_default())
    });
    let on_spec = p.on.reform(|e: InputEvent| {
        Action::SetSpec(e.target_dyn_into::<web_sys::HtmlTextAreaElement>().map(|t| t.value()).unwrap_or_default())
    });
    let on_restore = p.on.reform(|_: MouseEvent| Action::RestoreSpec);
    // The finished sweep's plot and table, in the page's language.
    let finished = match &pane.phase {
        Phase::Done { sweep, .. } => Some(sweep.clone()),
        _ => None,
    };
    let results = use_memo((finished.clone(), l), |(f, l)| f.as_ref().map(|f| (f.0.svg(*l), summary_rows(&f.0, *l))));
    let download = |what: &'static str| {
        let (finished, results) = (finished.clone(), results.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(Finished(s)) = finished.as_ref() else { return };
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
    let (done, total) = pane.progress;
    let status = match &pane.phase {
        Phase::Idle => html! {},
        Phase::Running { .. } => {
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
    let bar = match pane.phase {
        Phase::Running { .. } | Phase::Cancelled | Phase::Done { .. } => {
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
                    { finished.as_ref().map_or(html! {}, |f| super::runs_table::runs_table(&f.0, l, &p.on)) }
                </div>
            }
        }
        None => html! {},
    };
    let run_label = match pane.phase {
        Phase::Idle | Phase::Failed(_) | Phase::Running { .. } => tr(l, k::UI_RUN),
        _ => tr(l, k::UI_RUN_AGAIN),
    };
    html! {
        <div class="exp-pane" data-experiment={id}>
            { about }
            <div class="exp-form">
                <label class="exp-trials">{ tr(l, k::UI_TRIALS_PER_LINE_RANDOM_SEEDS) }
                    <input type="text" inputmode="numeric" size="7" data-testid="experiment-trials" value={(*pane.trials).clone()} oninput={on_trials}
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
                <textarea rows="14" spellcheck="false" data-testid="experiment-spec" value={(*pane.spec).clone()} oninput={on_spec} disabled={running}
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
