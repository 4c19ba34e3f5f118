// The SCORM side of a lesson, in the LMS (copied into every package of `make scorm` as scorm.js).
//
// The launch page of each lesson (one SCO) frames the offline lab at that lesson and listens to
// what the lab already tells the page that frames it (lesson_io::post): `stop`, `answer` (with
// `right`) and `done`. It finds the LMS's run-time the standard way — `API` (SCORM 1.2) or
// `API_1484_11` (SCORM 2004) on this window or one of its parents, then the opener's — and
// reports through it: the score as the share of the lesson's questions answered right (0–100),
// incomplete until the last stop, then completed (and passed or failed when the LMS sets a
// mastery score), the stop reached as the location, the answers as suspend data so that a
// student who comes back keeps them, and the session's time. Without an LMS it only frames the
// lesson. The lab itself carries none of this: its first load is unchanged.
(function () {
  'use strict';
  var root = document.documentElement;
  var lesson = root.getAttribute('data-lesson');
  var questions = Number(root.getAttribute('data-questions'));
  var stops = Number(root.getAttribute('data-stops'));
  var v12 = root.getAttribute('data-scorm') === '1.2';
  var name = v12 ? 'API' : 'API_1484_11';

  /** The run-time on `win` or the first of its parents that has one (at most 10 up). */
  function search(win) {
    for (var depth = 0; win && depth <= 10; depth++) {
      try {
        if (win[name]) return win[name];
      } catch (e) {
        // A window of another origin: look further up.
      }
      if (!win.parent || win.parent === win) break;
      win = win.parent;
    }
    return null;
  }
  var api = search(window) || (window.opener ? search(window.opener) : null);

  function get(key) {
    if (!api) return '';
    var v = v12 ? api.LMSGetValue(key) : api.GetValue(key);
    return v == null ? '' : String(v);
  }
  function set(key, value) {
    if (api) (v12 ? api.LMSSetValue(key, String(value)) : api.SetValue(key, String(value)));
  }
  function commit() {
    if (api) (v12 ? api.LMSCommit('') : api.Commit(''));
  }

  var started = new Date();
  var answers = {};
  var reached = 0;
  var done = false;
  var open = false;
  if (api) open = String(v12 ? api.LMSInitialize('') : api.Initialize('')) === 'true';
  if (!open) api = null;

  // What a returning student had.
  try {
    var saved = JSON.parse(get('cmi.suspend_data') || '{}');
    if (saved && typeof saved === 'object') {
      answers = saved.answers && typeof saved.answers === 'object' ? saved.answers : {};
      done = saved.done === true;
      reached = Number(saved.reached) || 0;
    }
  } catch (e) {
    answers = {};
  }

  function right() {
    var n = 0;
    for (var k in answers) if (answers[k] === true) n++;
    return n;
  }

  /** The LMS's pass mark as a fraction (1.2: mastery score 0–100; 2004: scaled), if it set one. */
  function passMark() {
    var v = get(v12 ? 'cmi.student_data.mastery_score' : 'cmi.scaled_passing_score');
    if (v === '' || isNaN(Number(v))) return null;
    return v12 ? Number(v) / 100 : Number(v);
  }

  function report() {
    var scaled = questions > 0 ? right() / questions : null;
    var raw = scaled === null ? null : Math.round(scaled * 10000) / 100;
    var mark = passMark();
    var success = done && scaled !== null && mark !== null ? (scaled >= mark ? 'passed' : 'failed') : null;
    if (v12) {
      if (raw !== null) {
        set('cmi.core.score.min', 0);
        set('cmi.core.score.max', 100);
        set('cmi.core.score.raw', raw);
      }
      set('cmi.core.lesson_status', success || (done ? 'completed' : 'incomplete'));
      set('cmi.core.lesson_location', String(reached));
    } else {
      if (raw !== null) {
        set('cmi.score.min', 0);
        set('cmi.score.max', 100);
        set('cmi.score.raw', raw);
        set('cmi.score.scaled', Math.round(scaled * 10000) / 10000);
      }
      set('cmi.completion_status', done ? 'completed' : 'incomplete');
      set('cmi.success_status', success || 'unknown');
      set('cmi.progress_measure', done ? 1 : stops > 0 ? Math.round((reached / stops) * 100) / 100 : 0);
      set('cmi.location', String(reached));
    }
    set('cmi.suspend_data', JSON.stringify({ answers: answers, done: done, reached: reached }));
  }

  function pad(n, w) {
    var s = String(n);
    while (s.length < w) s = '0' + s;
    return s;
  }
  /** This session's length: 1.2's HHHH:MM:SS.SS, 2004's ISO 8601 duration. */
  function sessionTime() {
    var cs = Math.max(0, Math.round((new Date() - started) / 10));
    var h = Math.floor(cs / 360000);
    var m = Math.floor((cs % 360000) / 6000);
    var s = (cs % 6000) / 100;
    if (v12) return pad(Math.min(h, 9999), 4) + ':' + pad(m, 2) + ':' + pad(s.toFixed(2), 5);
    return 'PT' + h + 'H' + m + 'M' + s.toFixed(2) + 'S';
  }

  var frame = document.getElementById('lab');
  window.addEventListener('message', function (e) {
    var d = e.data;
    if (e.source !== frame.contentWindow || !d || d.type !== 'election-lab' || d.lesson !== lesson) return;
    if (d.event === 'stop' && typeof d.stop === 'number') {
      reached = Math.max(reached, d.stop + 1);
      report();
    } else if (d.event === 'answer' && typeof d.stop === 'number') {
      answers[d.stop] = d.right === true;
      report();
      commit();
    } else if (d.event === 'done') {
      done = true;
      reached = stops;
      report();
      commit();
    }
  });

  var finished = false;
  function finish() {
    if (!api || finished) return;
    finished = true;
    set(v12 ? 'cmi.core.session_time' : 'cmi.session_time', sessionTime());
    set(v12 ? 'cmi.core.exit' : 'cmi.exit', done ? (v12 ? '' : 'normal') : 'suspend');
    commit();
    v12 ? api.LMSFinish('') : api.Terminate('');
  }
  window.addEventListener('pagehide', finish);
  window.addEventListener('beforeunload', finish);

  if (api) {
    report();
    commit();
  }
  // The page in the learner's language when the LMS knows it (else the browser's).
  var pref = get(v12 ? 'cmi.student_preference.language' : 'cmi.learner_preference.language').toLowerCase();
  var lang = pref.indexOf('zh') === 0 ? 'zh' : pref.indexOf('en') === 0 ? 'en' : '';
  var title = root.getAttribute(lang === 'zh' ? 'data-title-zh' : 'data-title-en');
  document.title = title;
  frame.title = title;
  if (lang) root.lang = lang === 'zh' ? 'zh-CN' : 'en';
  frame.src = 'election-lab.html?lesson=' + encodeURIComponent(lesson) + (lang ? '&lang=' + lang : '');
})();
