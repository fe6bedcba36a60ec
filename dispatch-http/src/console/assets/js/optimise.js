// Starting an optimisation of the shown date from the board, with its settings, and watching
// it: `POST /plans/optimise/orders` (a new plan, or `plan: {id}` to re-optimise one), then
// `GET /plans/optimise/{id}` every second until the job stops; the day is then read again and
// the result (or the job's error) is said.

import { optimiseRefusal } from "./rules.js";
import { el } from "./format.js";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Optimiser {
  /**
   * @param {HTMLDialogElement} dialog the settings form; `context` gives `api()`, `board()`,
   * `say(text, isError)`, `fail(error)` and `reload()`.
   */
  constructor(dialog, context) {
    this.dialog = dialog;
    this.context = context;
    this.form = dialog.querySelector("form");
    this.target = dialog.querySelector("#optimise-plan");
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      dialog.close();
      this.run();
    });
    dialog.querySelector("#optimise-cancel").addEventListener("click", () => dialog.close());
  }

  /** Why the optimise button is disabled (null: enabled). */
  refusal() {
    return optimiseRefusal(this.context.board());
  }

  /** Opens the settings, offering a new plan or a re-optimisation of an undispatched one. */
  open() {
    const board = this.context.board();
    const plans = board.plans.filter((p) => !p.dispatched && !p.optimisation?.in_progress);
    this.target.replaceChildren(
      el("option", { value: "" }, `A new plan for ${board.date}`),
      ...plans.map((p) => el("option", { value: p.id }, `Re-optimise plan ${p.id}`)),
    );
    this.dialog.showModal();
  }

  async run() {
    const { api, board, say, fail, reload } = this.context;
    const date = board().date;
    const body = {
      delivery_date: date,
      settings: {
        active_vehicles: this.form.elements.active_vehicles.checked,
        auto_dispatch: this.form.elements.auto_dispatch.checked,
        maintain_upload_sequence: this.form.elements.maintain_upload_sequence.checked,
      },
    };
    if (this.target.value) body.plan = { id: Number(this.target.value) };
    document.body.dataset.optimising = "true";
    const started = Date.now();
    try {
      const { body: answer } = await api().post("v2/plans/optimise/orders", body);
      const id = answer.optimisation.id;
      const planId = answer.plan.id;
      let job = answer.optimisation;
      while (job.in_progress) {
        say(`Optimising ${date} (plan ${planId}): ${job.state ?? "running"}, ${Math.round((Date.now() - started) / 1000)} s…`);
        await sleep(1000);
        ({ optimisation: job } = (await api().get(`v2/plans/optimise/${id}`)).body);
      }
      await reload();
      const plan = board().plans.find((p) => p.id === planId);
      if (job.state === "failed" || job.state === "cancelled") {
        say(`Optimisation of plan ${planId} ${job.state}: ${job.error ?? "no reason given"}`, true);
      } else if (plan) {
        const stops = plan.routes.reduce((n, r) => n + r.stops.length, 0);
        const warn = job.warnings?.length ? ` Warning: ${job.warnings.join("; ")}` : "";
        say(`Plan ${planId} optimised in ${Math.round((Date.now() - started) / 1000)} s: ${plan.routes.length} routes, ${stops} stops, ${plan.unserved.length} not placed (travel times: ${job.travel_times ?? "—"}).${warn}`);
      }
    } catch (error) {
      fail(error);
    } finally {
      delete document.body.dataset.optimising;
    }
  }
}
