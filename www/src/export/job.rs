//! Figures made in the page's Web Worker: the page grabs the drawings (it alone has the DOM) and
//! posts a [`Job`] — the run's trace, the steps, the drawings, the options —; the worker
//! (`src/lab_worker.rs`) rebuilds the run, writes the figure with `export`'s writers (caption,
//! legend with shapes and looks, greyscale, strip, TikZ) and posts back the [`File`] that
//! `export.js` saves. The writers are thus in the worker's wasm, loaded on the first figure, not
//! in the first load; the page's part is the job's JSON and two calls into `export.js` (which
//! keeps the drawings grabbed, starts the worker and saves its files). Both ends' formats live
//! here, so that they agree and can be tested natively.

use super::{space_time, strip, tikz, Format, Look, Options, Scheme, Shape};
use crate::export;
use crate::i18n::{k, tr, Lang};
use election_lab::{Engine, Frame};
use serde_json::{json, Value};

/// What figure a job asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// The step shown, as SVG or PNG (one drawing).
    Picture,
    /// An animated PNG, a drawing a step.
    Animation,
    /// Steps side by side, a drawing a step.
    Strip,
    /// The steps as TikZ (one: a figure; several: a strip); drawn from the run, no drawing needed.
    Tikz,
    /// The space-time diagram up to the step, as TikZ.
    SpaceTime,
}

const WHATS: [(What, &str); 5] = [
    (What::Picture, "picture"),
    (What::Animation, "animation"),
    (What::Strip, "strip"),
    (What::Tikz, "tikz"),
    (What::SpaceTime, "space-time"),
];

/// What the page asks the worker for.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub what: What,
    /// The run (`Engine::trace_value`): scenario, interventions, step.
    pub trace: Value,
    pub preset: Option<String>,
    pub lang: Lang,
    /// The steps drawn, in order (one for a picture).
    pub steps: Vec<u64>,
    pub options: Options,
    /// For each step, the drawing `export.js` grabbed: [markup, background, ink, …] (12 texts).
    pub grabs: Vec<Vec<String>>,
    /// An animation's time a frame.
    pub delay_ms: u32,
}

/// Whether a job's JSON is a figure's.
pub fn is_figure(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str) == Some("figure")
}

impl Job {
    pub fn to_json(&self) -> String {
        let what = WHATS.iter().find(|w| w.0 == self.what).map_or("picture", |w| w.1);
        election_lab::write_json(&json!({
            "kind": "figure",
            "what": what,
            "trace": self.trace,
            "preset": self.preset,
            "lang": self.lang.tag(),
            "steps": self.steps,
            "format": self.options.format.tag(),
            "width": self.options.width,
            "scheme": self.options.scheme.tag(),
            "shape": if self.options.shape == Shape::Tall { "tall" } else { "slide" },
            "grabs": self.grabs,
            "delay": self.delay_ms,
        }))
    }

    pub fn from_value(v: &Value) -> Result<Job, String> {
        let text = |key: &str| v.get(key).and_then(Value::as_str).ok_or_else(|| format!("figure job: no '{key}'"));
        let num = |key: &str| v.get(key).and_then(Value::as_u64).ok_or_else(|| format!("figure job: no '{key}'"));
        let what = text("what")?;
        let what = WHATS.iter().find(|w| w.1 == what).ok_or_else(|| format!("figure job: what '{what}'"))?.0;
        let steps = v.get("steps").and_then(Value::as_array).ok_or("figure job: no 'steps'")?;
        let steps: Vec<u64> = steps.iter().filter_map(Value::as_u64).collect();
        if steps.is_empty() {
            return Err("figure job: no step".into());
        }
        let grabs = v.get("grabs").and_then(Value::as_array).ok_or("figure job: no 'grabs'")?;
        let grabs = grabs
            .iter()
            .map(|g| g.as_array().map(|a| a.iter().map(|s| s.as_str().unwrap_or_default().to_string()).collect()))
            .collect::<Option<Vec<Vec<String>>>>()
            .ok_or("figure job: a drawing is not a list of texts")?;
        let options = Options {
            format: Format::parse(text("format")?).ok_or("figure job: format")?,
            width: u32::try_from(num("width")?).map_err(|_| "figure job: width")?.clamp(200, 8000),
            scheme: Scheme::parse(text("scheme")?).ok_or("figure job: scheme")?,
            shape: if text("shape")? == "tall" { Shape::Tall } else { Shape::Slide },
        };
        Ok(Job {
            what,
            trace: v.get("trace").cloned().ok_or("figure job: no 'trace'")?,
            preset: v.get("preset").and_then(Value::as_str).map(str::to_string),
            lang: Lang::parse(text("lang")?).unwrap_or_default(),
            steps,
            options,
            grabs,
            delay_ms: u32::try_from(num("delay")?).unwrap_or(500),
        })
    }
}

/// How the page saves a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Save {
    Svg,
    Png,
    Tex,
    /// An animated PNG of the SVG texts, one a frame.
    Apng,
}

const SAVES: [(Save, &str); 4] = [(Save::Svg, "svg"), (Save::Png, "png"), (Save::Tex, "tex"), (Save::Apng, "apng")];

/// What the worker posts back: the file to save.
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    pub name: String,
    pub format: Save,
    /// The file's text (an SVG drawn into a PNG for `Png`); an animation's frames.
    pub texts: Vec<String>,
    pub width: u32,
    pub height: u32,
    pub delay_ms: u32,
}

impl File {
    pub fn to_json(&self) -> String {
        let format = SAVES.iter().find(|s| s.0 == self.format).map_or("svg", |s| s.1);
        json!({
            "kind": "figure",
            "name": self.name,
            "format": format,
            "texts": self.texts,
            "width": self.width,
            "height": self.height,
            "delay": self.delay_ms,
        })
        .to_string()
    }

    /// The file in a reply, or the worker's error, as `export.js` reads it.
    #[cfg(test)]
    pub fn from_json(text: &str) -> Result<File, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if let Some(e) = v.get("error").and_then(Value::as_str) {
            return Err(e.to_string());
        }
        let format = v.get("format").and_then(Value::as_str).unwrap_or_default();
        let num = |key: &str| v.get(key).and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
        Ok(File {
            name: v.get("name").and_then(Value::as_str).unwrap_or("election-lab").to_string(),
            format: SAVES.iter().find(|s| s.1 == format).ok_or("figure: no format")?.0,
            texts: v
                .get("texts")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|t| t.as_str().map(str::to_string)).collect())
                .filter(|t: &Vec<String>| !t.is_empty())
                .ok_or("figure: no text")?,
            width: num("width"),
            height: num("height"),
            delay_ms: num("delay"),
        })
    }
}

/// Whether the job needs the Chinese catalog (the worker fetches it first).
pub fn needs_chinese(job: &Value) -> bool {
    job.get("lang").and_then(Value::as_str).and_then(Lang::parse) == Some(Lang::Zh)
}

/// The worker's end: the reply (a [`File`] or an error) to the job `v`.
pub fn run(v: &Value) -> String {
    match Job::from_value(v).and_then(|job| make(&job)) {
        Ok(file) => file.to_json(),
        Err(e) => json!({ "kind": "figure", "error": e }).to_string(),
    }
}

/// A drawing grabbed: the canvas's markup and the picture's look.
fn drawing(parts: &[String]) -> Result<(&str, Look), String> {
    let (canvas, rest) = parts.split_first().ok_or("figure job: an empty drawing")?;
    Ok((canvas, Look::from_parts(rest).ok_or("figure job: a drawing without its look")?))
}

/// The figure `job` asks for.
pub fn make(job: &Job) -> Result<File, String> {
    let mut engine = Engine::from_trace_value(&job.trace).map_err(|e| e.to_string())?;
    let alg = engine.algorithm();
    let (preset, lang, o) = (job.preset.as_deref(), job.lang, job.options);
    let grey = o.scheme == Scheme::Grey;
    let at = |engine: &mut Engine, step: u64| -> Frame {
        engine.seek(step);
        engine.frame()
    };
    let svg_file = |name: String, svg: String| {
        let height = export::compose::svg_height(&svg).unwrap_or(o.width);
        let format = if o.format == Format::Png { Save::Png } else { Save::Svg };
        File { name, format, texts: vec![svg], width: o.width, height, delay_ms: 0 }
    };
    let tex_file = |name: String, text: String| File {
        name,
        format: Save::Tex,
        texts: vec![text],
        width: 0,
        height: 0,
        delay_ms: 0,
    };
    let links = engine.scenario().topology.is_some();
    match job.what {
        What::Picture => {
            let (canvas, look) = drawing(job.grabs.first().ok_or("figure job: no drawing")?)?;
            let frame = at(&mut engine, job.steps[0]);
            let lines = export::caption(alg, preset, &frame, lang);
            let legend = export::legend(alg, &[&frame], links, lang);
            let svg = export::in_scheme(export::compose(canvas, &lines, &legend, &look, o.width, o.shape), o.scheme);
            Ok(svg_file(export::file_name(alg, preset, frame.step, o.format), svg))
        }
        What::Animation => {
            let mut texts = Vec::new();
            for (parts, &step) in job.grabs.iter().zip(&job.steps) {
                let (canvas, look) = drawing(parts)?;
                let frame = at(&mut engine, step);
                let lines = export::caption(alg, preset, &frame, lang);
                let legend = export::legend(alg, &[&frame], links, lang);
                let svg = export::compose(canvas, &lines, &legend, &look, o.width, o.shape);
                texts.push(export::in_scheme(svg, o.scheme));
            }
            let height = texts.first().and_then(|t| export::compose::svg_height(t)).unwrap_or(o.width);
            let (from, to) = (job.steps[0], job.steps[texts.len().max(1) - 1]);
            let name = format!("election-lab-{}-steps{from}-{to}.png", preset.unwrap_or(alg.id));
            Ok(File { name, format: Save::Apng, texts, width: o.width, height, delay_ms: job.delay_ms })
        }
        What::Strip => {
            let (mut panels, mut frames, mut look) = (Vec::new(), Vec::new(), None);
            for (parts, &step) in job.grabs.iter().zip(&job.steps) {
                let (canvas, l) = drawing(parts)?;
                let frame = at(&mut engine, step);
                let lines = export::caption(alg, preset, &frame, lang);
                panels.push((canvas.to_string(), lines[lines.len() - 2..].to_vec()));
                frames.push(frame);
                look = Some(l);
            }
            let look = look.ok_or("figure job: no drawing")?;
            let mut title = export::caption(alg, preset, &frames[0], lang);
            title.truncate(title.len() - 2);
            let legend = export::legend(alg, &frames.iter().collect::<Vec<_>>(), links, lang);
            let svg = export::in_scheme(strip::compose(&panels, &title, &legend, &look, o.width), o.scheme);
            let steps = &job.steps[..panels.len()];
            let ext = if o.format == Format::Png { "png" } else { "svg" };
            Ok(svg_file(strip::file_name(preset.unwrap_or(alg.id), steps, ext), svg))
        }
        What::Tikz => {
            let panels = tikz::panels(&mut engine, preset, &job.steps, lang);
            let frames: Vec<&Frame> = panels.iter().map(|p| &p.frame).collect();
            let legend = export::legend(alg, &frames, links, lang);
            let mut title = export::caption(alg, preset, &panels[0].frame, lang);
            title.truncate(title.len() - 2);
            let doc = tikz::document(alg, &title, &panels, &legend, grey, lang);
            Ok(tex_file(tikz::file_name(alg, preset, &job.steps), doc))
        }
        What::SpaceTime => {
            let frame = at(&mut engine, job.steps[0]);
            let mut title = export::caption(alg, preset, &frame, lang);
            title.truncate(title.len() - 1);
            title[0] = format!("{} · {}", title[0], tr(lang, k::UI_SPACE_TIME_DIAGRAM));
            let doc = space_time::space_time(&engine, &title, grey, lang);
            let name = format!("election-lab-{}-spacetime-step{}.tex", preset.unwrap_or(alg.id), frame.step);
            Ok(tex_file(name, doc))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use election_lab::presets;

    fn bully(step: u64) -> Engine {
        let mut e = Engine::new(presets::find("bully-heal").unwrap().scenario()).unwrap();
        e.seek(step);
        e
    }

    fn grab() -> Vec<String> {
        let l = crate::export::tests::look();
        [
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><circle r=\"5\" fill=\"#E69F00\"/></svg>",
            &l.background,
            &l.ink,
            &l.muted,
            &l.bad,
            &l.font,
            &l.leader,
            &l.candidate,
            &l.waiting,
            &l.node,
            &l.line,
            &l.crashed,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    fn job(what: What, format: Format, scheme: Scheme, steps: Vec<u64>, grabs: usize) -> Job {
        Job {
            what,
            trace: bully(40).trace_value(),
            preset: Some("bully-heal".into()),
            lang: Lang::En,
            grabs: (0..grabs).map(|_| grab()).collect(),
            steps,
            options: Options { format, width: 1920, scheme, shape: Shape::Slide },
            delay_ms: 300,
        }
    }

    /// The job as the worker receives it, and the file it posts back as the page reads it.
    fn round_trip(job: &Job) -> Result<File, String> {
        let v: Value = serde_json::from_str(&job.to_json()).unwrap();
        assert!(is_figure(&v));
        assert_eq!(&Job::from_value(&v).unwrap(), job, "the job crosses over unchanged");
        File::from_json(&run(&v))
    }

    #[test]
    fn a_picture_is_made_from_the_run_and_the_drawing() {
        let f = round_trip(&job(What::Picture, Format::Svg, Scheme::Page, vec![40], 1)).unwrap();
        assert_eq!((f.name.as_str(), f.format), ("election-lab-bully-heal-step40.svg", Save::Svg));
        assert_eq!((f.width, f.height), (1920, 1080));
        let svg = &f.texts[0];
        assert!(svg.contains("<circle r=\"5\" fill=\"#E69F00\"/>"), "the drawing grabbed");
        assert!(svg.contains(">step 40 · t = "), "the caption of the step");
        let png = round_trip(&job(What::Picture, Format::Png, Scheme::Grey, vec![40], 1)).unwrap();
        assert_eq!(png.format, Save::Png);
        assert!(!png.texts[0].contains("#E69F00"), "greyscale");
    }

    #[test]
    fn a_strip_an_animation_and_tikz_come_back_as_files() {
        let strip = round_trip(&job(What::Strip, Format::Svg, Scheme::Light, vec![10, 20, 40], 3)).unwrap();
        assert_eq!(strip.name, "election-lab-bully-heal-steps10-20-40.svg");
        assert_eq!(strip.texts[0].matches("<circle r=\"5\"").count(), 3);
        let anim = round_trip(&job(What::Animation, Format::Png, Scheme::Page, vec![5, 6, 7], 3)).unwrap();
        assert_eq!((anim.format, anim.texts.len(), anim.delay_ms), (Save::Apng, 3, 300));
        assert_eq!(anim.name, "election-lab-bully-heal-steps5-7.png");
        let tex = round_trip(&job(What::Tikz, Format::Tikz, Scheme::Grey, vec![40], 0)).unwrap();
        assert_eq!((tex.name.as_str(), tex.format), ("election-lab-bully-heal-step40.tex", Save::Tex));
        assert!(tex.texts[0].contains("\\begin{tikzpicture}") && tex.texts[0].contains("{gray}"));
        let st = round_trip(&job(What::SpaceTime, Format::Tikz, Scheme::Page, vec![40], 0)).unwrap();
        assert_eq!(st.name, "election-lab-bully-heal-spacetime-step40.tex");
    }

    #[test]
    fn a_bad_job_is_answered_with_what_is_wrong() {
        let no_drawing = round_trip(&job(What::Picture, Format::Svg, Scheme::Page, vec![40], 0));
        assert_eq!(no_drawing, Err("figure job: no drawing".into()));
        let mut j = job(What::Picture, Format::Svg, Scheme::Page, vec![40], 1);
        j.grabs[0].truncate(5);
        assert_eq!(round_trip(&j), Err("figure job: a drawing without its look".into()));
        let v = json!({ "kind": "figure", "what": "movie" });
        assert!(File::from_json(&run(&v)).unwrap_err().contains("what"));
    }

    #[test]
    fn a_chinese_job_asks_for_the_catalog() {
        let mut j = job(What::Tikz, Format::Tikz, Scheme::Page, vec![40], 0);
        assert!(!needs_chinese(&serde_json::from_str(&j.to_json()).unwrap()));
        j.lang = Lang::Zh;
        assert!(needs_chinese(&serde_json::from_str(&j.to_json()).unwrap()));
        let f = round_trip(&j).unwrap();
        assert!(f.texts[0].contains("\\begin{CJK}"), "the caption in Chinese");
    }
}
