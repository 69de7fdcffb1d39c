// Drives `guarded explore`'s page in Debian's Chromium (playwright-core).
// Usage: node explore.mjs SCENARIO URL DIR
//   walk            click a process that is not enabled (it says why), run
//                   until a half-typed expression (it fails, in red), then
//                   a privileged process three times, go back, branch,
//                   save the path into DIR (path.init, path.sched); prints
//                   the values the page shows at the end, as JSON
//   counterexample  verify from the page, open the synchronous cycle,
//                   walk it from its start to its end; prints each node's
//                   values, as JSON
//   edit            make the program a type error, read the diagnostic,
//                   fix it; prints both, as JSON
//   shot            a screenshot of the page, DIR/explore.png (with
//                   SHOT_STEPS daemon steps first)
// Run by tests/explore_browser.rs, which checks what it prints.
import { chromium } from "playwright-core";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const [scenario, url, dir] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
page.setDefaultTimeout(20000);
const fail = (m) => { console.error(m); process.exitCode = 1; };
page.on("pageerror", (e) => fail("page error: " + e.message));

await page.goto(url);
await page.waitForSelector("body[data-ready=true]");

// The values in the table, a row per process.
const values = () => page.$$eval("#values tr", (rows) =>
  rows.slice(1).map((r) => [...r.querySelectorAll("td")].slice(1).map((td) => td.textContent)));
const step = () => page.$eval("#measures", (m) => m.textContent);
// Waits until the measures line shows step `n`.
const atStep = (n) => page.waitForFunction((n) =>
  document.getElementById("measures").textContent.startsWith(`step ${n} `), n);

if (scenario === "walk") {
  // A process that is not enabled says why when clicked.
  const off = await page.$eval("svg .proc:not(.enabled)", (g) => g.dataset.p);
  await page.click(`svg .proc[data-p="${off}"]`);
  await page.waitForSelector("#why:not([hidden])");
  const why = await page.$eval("#why", (p) => p.textContent);
  // What an action did reads plainly, and why one failed in red.
  const message = () => page.$eval("#message", (m) => ({ text: m.textContent, error: m.classList.contains("error") }));
  const told = await message();
  await page.fill("#run-until", "x ==");
  await page.click("#run");
  await page.waitForFunction(() => document.getElementById("message").classList.contains("error"));
  const failed = await message();
  await page.fill("#run-until", "");
  for (let k = 1; k <= 3; k++) {
    const p = await page.$eval("svg .proc.enabled", (g) => g.dataset.p);
    await page.click(`svg .proc[data-p="${p}"]`);
    // A process with several moves asks which: take its first.
    if (await page.$(`#moves li.focus`)) await page.click(`#moves li.focus button.move`);
    await atStep(k);
  }
  await page.click("#back");
  await atStep(2);
  // Branch: another enabled process than the one the path took next.
  const path = await page.$$eval("#path li", (l) => l.map((x) => x.textContent));
  const tree = await page.$$eval("#tree span", (s) => s.map((x) => x.textContent));
  const taken = tree[tree.length - 1];
  const other = await page.$$eval("#moves button.move", (bs, taken) =>
    bs.map((b) => b.dataset.text).find((t) => t !== taken), taken);
  if (!other) fail("no other move to branch with");
  await page.click(`#moves button.move[data-text="${other}"]`);
  await atStep(3);
  const children = await page.$$eval("#tree span", (s) => {
    const node = s.find((x) => x.dataset.node === "2");
    return node.parentElement.querySelectorAll(":scope > ul > li").length;
  });
  await page.click("#save");
  await page.waitForSelector("#saved:not([hidden])");
  for (const [id, name] of [["#save-init", "path.init"], ["#save-sched", "path.sched"]]) {
    const [download] = await Promise.all([page.waitForEvent("download"), page.click(id)]);
    await download.saveAs(join(dir, name));
  }
  const whyHidden = await page.$eval("#why", (p) => p.hidden);
  console.log(JSON.stringify({ path, children, values: await values(), measures: await step(), off, why, whyHidden, told, failed }));
} else if (scenario === "counterexample") {
  await page.click("summary:has-text('Verify')");
  await page.click("#verify");
  await page.waitForSelector("button.witness[data-name='synchronous-cycle']", { timeout: 60000 });
  const output = await page.$eval("#verify-out", (p) => p.textContent);
  await page.click("button.witness[data-name='synchronous-cycle']");
  await page.waitForFunction(() => document.getElementById("message").textContent.startsWith("opened"));
  const nodes = await page.$$eval("#path li", (l) => l.map((x) => x.dataset.node));
  const walked = [];
  for (const node of nodes) {
    await page.click(`#path li[data-node="${node}"]`);
    await page.waitForSelector(`#path li.here[data-node="${node}"]`);
    walked.push({ node, measures: await step(), values: await values() });
  }
  console.log(JSON.stringify({ output, walked }));
} else if (scenario === "edit") {
  await page.click("summary:has-text('Program')");
  const source = await page.$eval("#editor", (t) => t.value);
  const broken = source.replace(/x := left\.x/, "x := left.x == 0");
  if (broken === source) fail("nothing to break in the program");
  // Typing is checked once it pauses, without a click.
  await page.fill("#editor", broken);
  await page.waitForFunction(() => document.getElementById("diagnostics").textContent.length > 0);
  const diagnostic = await page.$eval("#diagnostics", (p) => p.textContent);
  await page.fill("#editor", source);
  await page.click("#reload");
  await page.waitForFunction(() => document.getElementById("message").textContent.startsWith("the program checks"));
  const after = await page.$eval("#diagnostics", (p) => p.textContent);
  console.log(JSON.stringify({ diagnostic, after, measures: await step() }));
} else if (scenario === "shot") {
  const steps = parseInt(process.env.SHOT_STEPS || "0", 10);
  for (let k = 1; k <= steps; k++) {
    await page.click("#daemon-step");
    await atStep(k);
  }
  // Delivered messages move to their receivers for under a second.
  await page.waitForTimeout(1000);
  await page.screenshot({ path: join(dir, "explore.png"), fullPage: false });
  console.log(JSON.stringify({ measures: await step() }));
} else {
  fail(`no scenario ${scenario}`);
}
await browser.close();
