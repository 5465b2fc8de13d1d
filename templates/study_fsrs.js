/* The handbook's scheduler: the server's FSRS (py-fsrs 6.3, Scheduler.review_card) step for step, on the
   FSRS-6 memory model of ts-fsrs (FSRS.FSRSAlgorithm from the vendored bundle: stability, difficulty,
   retrievability, intervals). ts-fsrs's own Scheduler differs from py-fsrs in three places, so it is not
   used: it counts elapsed days by UTC calendar date (py-fsrs: whole 24-hour periods), rounds the Hard
   learning step to whole minutes (py-fsrs: 5.5 min) and forces Hard < Good < Easy intervals apart (py-fsrs
   does not). Two more py-fsrs details are kept here: a first stability of at least 0.001 (ts-fsrs: 0.1)
   and no fuzz (the import schedules offline reviews without fuzz too, so both sides agree).
   A state: {state: 1 Learning | 2 Review | 3 Relearning, step, stability, difficulty, due, last_review}
   with times in ms since the epoch; null is a new item. */
var proofdeckFsrs = (function () {
  "use strict";
  var DAY = 86400000, S_MIN = 0.001, LEARNING = 1, REVIEW = 2, RELEARNING = 3;
  var AGAIN = 1, HARD = 2, GOOD = 3, EASY = 4;

  /* cfg: the server's scheduler (parameters, desired_retention, learning_steps and relearning_steps in
     seconds, maximum_interval in days), as app/export/study.py embeds it */
  function make(cfg) {
    var alg = new FSRS.FSRSAlgorithm(FSRS.generatorParameters({
      w: cfg.parameters, request_retention: cfg.desired_retention, maximum_interval: cfg.maximum_interval,
      enable_fuzz: false, enable_short_term: true,
      learning_steps: cfg.learning_steps.map(function (s) { return Math.round(s / 60) + "m"; }),
      relearning_steps: cfg.relearning_steps.map(function (s) { return Math.round(s / 60) + "m"; })
    }));
    var w = cfg.parameters, learning = cfg.learning_steps, relearning = cfg.relearning_steps;

    function initialStability(g) { return Math.max(w[g - 1], S_MIN); }
    function initialDifficulty(g) { return Math.min(Math.max(alg.init_difficulty(g), 1), 10); }
    function retrievability(card, at) {
      if (card.last_review == null || card.stability == null) return 0;
      return alg.forgetting_curve(Math.max(0, Math.floor((at - card.last_review) / DAY)), card.stability);
    }
    function nextStability(card, g, at) {
      var r = retrievability(card, at);
      if (g === AGAIN) {
        var shortTerm = card.stability / Math.exp(w[17] * w[18]);
        return Math.max(Math.min(alg.next_forget_stability(card.difficulty, card.stability, r), shortTerm), S_MIN);
      }
      return Math.max(alg.next_recall_stability(card.difficulty, card.stability, r, g), S_MIN);
    }
    function days(s) { return alg.next_interval(s, 0) * DAY; }  /* whole days, at least 1, at most the maximum */

    /* the learning (or relearning) steps' answer: [state, step, interval ms] */
    function stepped(card, g, steps, stateWhile) {
      if (steps.length === 0 || (card.step >= steps.length && g !== AGAIN)) return [REVIEW, null, days(card.stability)];
      if (g === AGAIN) return [stateWhile, 0, steps[0] * 1000];
      if (g === HARD) {
        if (card.step === 0 && steps.length === 1) return [stateWhile, 0, steps[0] * 1.5 * 1000];
        if (card.step === 0) return [stateWhile, 0, (steps[0] + steps[1]) / 2 * 1000];
        return [stateWhile, card.step, steps[card.step] * 1000];
      }
      if (g === GOOD && card.step + 1 !== steps.length) return [stateWhile, card.step + 1, steps[card.step + 1] * 1000];
      return [REVIEW, null, days(card.stability)];  /* Good on the last step, or Easy */
    }

    /* the state after answering rating g (1-4) at time at (ms) */
    function review(state, g, at) {
      var card = state ? { state: state.state, step: state.step, stability: state.stability,
                           difficulty: state.difficulty, last_review: state.last_review }
                       : { state: LEARNING, step: 0, stability: null, difficulty: null, last_review: null };
      var elapsed = card.last_review != null ? Math.floor((at - card.last_review) / DAY) : null;
      var out;
      if (card.state === LEARNING && (card.stability == null || card.difficulty == null)) {
        card.stability = initialStability(g);
        card.difficulty = initialDifficulty(g);
      } else {
        card.stability = elapsed !== null && elapsed < 1 ? alg.next_short_term_stability(card.stability, g)
                                                         : nextStability(card, g, at);
        card.difficulty = alg.next_difficulty(card.difficulty, g);
      }
      if (card.state === LEARNING) out = stepped(card, g, learning, LEARNING);
      else if (card.state === RELEARNING) out = stepped(card, g, relearning, RELEARNING);
      else if (g === AGAIN && relearning.length) out = [RELEARNING, 0, relearning[0] * 1000];
      else out = [REVIEW, null, days(card.stability)];
      return { state: out[0], step: out[1], stability: card.stability, difficulty: card.difficulty,
               due: at + out[2], last_review: at };
    }
    return { review: review };
  }

  /* an interval as the quiz's buttons write it (app/srs/preview.py: label), Python's rounding included */
  function roundHalfEven(x) {
    var r = Math.round(x);
    return (Math.abs(x % 1) === 0.5 && r % 2 !== 0) ? r - 1 : r;
  }
  function label(seconds) {
    var minutes = seconds / 60;
    if (minutes < 1) return "<1 min";
    if (minutes < 60) return roundHalfEven(minutes) + " min";
    var hours = minutes / 60;
    if (hours < 24) return roundHalfEven(hours) + " h";
    var d = hours / 24;
    if (d < 30) return roundHalfEven(d) + " d";
    if (d < 365) return (d / 30).toFixed(1).replace(/\.0$/, "") + " mo";
    return (d / 365).toFixed(1).replace(/\.0$/, "") + " y";
  }
  return { make: make, label: label, REVIEW: REVIEW };
})();
