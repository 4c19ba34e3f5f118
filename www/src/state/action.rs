//! What the page asks of the reducer: [`Action`].

use super::LogFilter;
use crate::geometry::Line;
use crate::i18n::Lang;
use election_lab::{Action as Intervention, Scenario};

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// The concerns with their own reducers (`playback.rs`, `selection.rs`, `dialogs.rs`,
    /// `messages.rs`, `search.rs`, `check.rs`, compare mode's); the
    /// plain variants below that name their actions (`Pause`, `Peek`, `ToggleHelp`, ...) are
    /// kept as the components send them, and mapped to these by [`Action::aliased`].
    Playback(super::PlaybackAction),
    Selection(super::SelectionAction),
    Dialog(super::DialogAction),
    Message(super::MessageAction),
    Search(super::SearchAction),
    Check(super::CheckAction),
    /// Compare mode's own (`state/compare/mode.rs`).
    CompareMode(super::CompareAction),
    TogglePlay,
    Pause,
    StepForward,
    StepBack,
    Seek(u64),
    Home,
    End,
    Reset,
    Speed(f64),
    Faster,
    Slower,
    /// The animation clock reached virtual time `t`: apply every event up to it.
    PlayTo(f64),
    /// One slice of the computing of a scripted run (`state/slices.rs`).
    Compute,
    /// Click on a node: crash it if up, recover it if crashed.
    NodeClick(u32),
    NodeMenu(u32),
    CloseMenu,
    Act(Intervention),
    /// The partition lines as the user left them (empty: heal).
    SetLines(Vec<Line>),
    ClearLines,
    LoadPreset(String),
    /// The scenario editor's fields, parsed (or why not).
    ApplyScenario(Result<Scenario, String>),
    /// A scenario or trace as JSON text.
    Import(String),
    /// A file refused before it was read (too large): why, naming the file. Nothing changes.
    ImportRefused(String),
    /// Files chosen or dropped at once: (name, text). One JSON file is imported as above; logs
    /// of a real cluster are detected and opened as a recorded run.
    ImportFiles(Vec<(String, String)>),
    /// Files as read, in bytes: a scenario or trace must be UTF-8 text, as the command line
    /// requires (the file is named otherwise); logs are read with damaged bytes replaced, as
    /// `election-lab import` reads them. Then as [`Action::ImportFiles`].
    ImportBytes(Vec<(String, Option<Vec<u8>>)>),
    /// Compare lanes: the recorded run beside the textbook algorithm of its system.
    ReplayModel,
    ShowShare {
        title: String,
        text: String,
    },
    CloseShare,
    Dismiss,
    ToggleHelp,
    /// Open or close the "how it works" card of the running algorithm.
    ToggleCard,
    /// Show the page in this language: at once if its texts are at hand, else once its catalog
    /// has arrived (the page keeps the current language meanwhile).
    SetLang(Lang),
    /// Switch to the other language.
    ToggleLang,
    /// A language's catalog was fetched and installed (`effects::use_catalog`); `Err` names why
    /// it could not be.
    CatalogArrived(Lang, Result<(), String>),
    /// Take back the last intervention (Ctrl+Z) / put it back (Ctrl+Shift+Z).
    Undo,
    Redo,
    Escape,
    /// Compare these algorithms side by side (2 to 4), on the scenario and faults now shown.
    Compare(Vec<&'static election_lab::Algorithm>),
    /// The course's split-brain experiment, on every algorithm that fits it.
    ComparePreset,
    CloseCompare,
    /// Open or close the compare picker.
    TogglePicker,
    /// The node menu of node `1` in lane `0` (compare mode).
    LaneMenu(usize, u32),
    /// Open or close the experiments view (the simulator's session is kept meanwhile).
    ToggleExperiments,
    CloseExperiments,
    /// Show this ready-made experiment (an id of `experiment::READY`) in the experiments view.
    PickExperiment(&'static str),
    /// The experiments view's trial count / spec as typed; its ready-made spec again.
    SetTrials(String),
    SetSpec(String),
    RestoreSpec,
    /// Run the experiment shown (its sweep, in the worker) / stop it.
    RunSweep,
    CancelSweep,
    /// A reply of the sweep's worker, as its JSON text.
    SweepReply(String),
    /// Hover, focus or a long press on a node: show it in the inspector (the run is unchanged).
    Peek(u32),
    /// Choose a node for (or take it off) one side of a keyboard partition.
    ToggleSide(u32),
    /// Cut the chosen nodes off from the others with one line, as if drawn.
    CommitSide,
    ClearSide,
    /// The page is used by touch (a coarse pointer): words name gestures, not keys.
    SetTouch(bool),
    /// Add a breakpoint from its text (as the command line's `--until` reads it).
    AddBreakpoint(String),
    RemoveBreakpoint(usize),
    /// Run on to the next breakpoint hit at once / back to the previous one.
    NextHit,
    PrevHit,
    /// Narrow the event log.
    SetLogFilter(LogFilter),
    /// Search for a schedule of faults that breaks this property (an id the engine's search
    /// reads), in the worker.
    FindCounterexample(String),
    /// A reply of the search's worker, as its JSON text.
    SearchReply(String),
    CancelSearch,
    /// Check every schedule of the scenario for this property within these bounds, in the
    /// worker (`crate::check_job`).
    CheckEverySchedule(String, super::CheckBounds),
    /// A reply of the check's worker, as its JSON text.
    CheckReply(String),
    CancelCheck,
    /// The lesson open (its `?lesson=` value), kept in the links the page writes.
    SetLessonLink(Option<String>),
    /// The Lessons button in a build without the lesson player (with it, the page opens the
    /// course list itself).
    Courses,
    /// Open the kept run beside the one shown (the old future and the new, or the run you had
    /// and the trace imported), in two lanes with their first divergence marked.
    Fork,
    /// Forget the kept run.
    DismissOffer,
    /// A run of an experiment, as a trace (JSON): open it in the lab, leaving the experiments.
    OpenRun(String),
    /// Enter or leave the presenter view.
    TogglePresent,
    /// In the player, a tool of the workbench (`workbench::IMPORT`, `RECORD`, `LINK`): load the
    /// workbench and open it there.
    OpenTool(&'static str),
    /// The run kept beside the one shown, handed from the player to the workbench (then
    /// [`Action::Fork`] opens both).
    Offered(std::rc::Rc<super::fork::Offer>),
    /// The workbench, or the full player a handoff asked for, could not be loaded: why. The
    /// running app goes on.
    WorkbenchFailed(String),
    /// A query this build cannot show (`bundle::elsewhere`): load the full player and open it there.
    Elsewhere(String),
    /// Picture export's DOM side (`export_dom.js`) could not be loaded: why. The page goes on.
    ExportFailed(String),
    /// The editor of users' own algorithms (`state/script.rs`); in the player, opening it loads
    /// the workbench.
    Script(super::script::ScriptAction),
    /// The watch panel's value (an inspector field's id), or none; in the player, choosing one loads
    /// the workbench, which draws its sparklines (`state/watch.rs`).
    Watch(Option<String>),
    /// An assignment and its grading (`state/assignment.rs`): workbench only.
    Assignment(super::assignment::AssignmentAction),
}

impl Action {
    /// A plain variant that is a concern's action by another name, as that action (the others
    /// as they are). The workbench's own (`workbench`: the search, the check, compare mode, the
    /// picker) only in the workbench: the player hands them, as sent, to the workbench.
    pub(super) fn aliased(self, workbench: bool) -> Action {
        use super::{CheckAction as C, CompareAction as M, DialogAction as D, MessageAction, PlaybackAction as P};
        use super::{SearchAction as F, SelectionAction as S};
        match self {
            Action::Pause => Action::Playback(P::Pause),
            Action::Speed(s) => Action::Playback(P::Speed(s)),
            Action::Faster => Action::Playback(P::Faster),
            Action::Slower => Action::Playback(P::Slower),
            Action::NodeMenu(id) => Action::Selection(S::Menu(id)),
            Action::CloseMenu => Action::Selection(S::CloseMenu),
            Action::Peek(id) => Action::Selection(S::Peek(id)),
            Action::ToggleSide(id) => Action::Selection(S::ToggleSide(id)),
            Action::ClearSide => Action::Selection(S::ClearSide),
            Action::ShowShare { title, text } => Action::Dialog(D::ShowShare { title, text }),
            Action::CloseShare => Action::Dialog(D::CloseShare),
            Action::ToggleHelp => Action::Dialog(D::ToggleHelp),
            Action::ToggleCard => Action::Dialog(D::ToggleCard),
            Action::Dismiss => Action::Message(MessageAction::Dismiss),
            Action::TogglePicker if workbench => Action::Dialog(D::TogglePicker),
            Action::FindCounterexample(property) if workbench => Action::Search(F::Find(property)),
            Action::SearchReply(text) if workbench => Action::Search(F::Reply(text)),
            Action::CancelSearch if workbench => Action::Search(F::Cancel),
            Action::CheckEverySchedule(property, bounds) if workbench => Action::Check(C::Start(property, bounds)),
            Action::CheckReply(text) if workbench => Action::Check(C::Reply(text)),
            Action::CancelCheck if workbench => Action::Check(C::Cancel),
            Action::Compare(algs) if workbench => Action::CompareMode(M::Open(algs)),
            Action::ComparePreset if workbench => Action::CompareMode(M::Preset),
            Action::CloseCompare if workbench => Action::CompareMode(M::Close),
            other => other,
        }
    }
}

/// What the page's URL is written from (see [`super::State::url_key`]).
pub type UrlKey = (u64, u64, Option<u32>, Lang, Option<&'static str>, Option<std::rc::Rc<String>>, bool);

/// The ready-made experiment named `id`, if there is one.
pub fn ready_experiment(id: &str) -> Option<&'static str> {
    election_lab::experiment::READY.iter().map(|r| r.0).find(|r| *r == id)
}
