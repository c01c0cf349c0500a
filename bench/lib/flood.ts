import { assertClean, fire, measure, median, type Measurement, type Scenario } from './load.js';
import type { BenchOptions } from './options.js';

/** The legitimate client: few connections, as one well-behaved integration would use. */
const LEGITIMATE_CONNECTIONS = 5;
/** The flood starts this long before the legitimate client's run and ends after it. */
const FLOOD_LEAD_S = 1;

/**
 * A legitimate client alone, then the same while `flood` runs at full speed on its own
 * connections, alternately (`rounds`). Returns two rows: the client alone, and under the
 * flood with `ratios` its req/s under the flood over its req/s alone in the same round.
 */
export async function legitimateUnderFlood(
  legitimate: Scenario,
  flood: Scenario,
  options: BenchOptions,
): Promise<Measurement[]> {
  const client = { ...legitimate, connections: LEGITIMATE_CONNECTIONS };
  const alone: Measurement[] = [];
  const flooded: Measurement[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const runOptions = round === 0 ? options : { ...options, warmup: 0 };
    alone.push(await measure({ ...client, name: `${client.name}, alone` }, runOptions));
    const flooding = fire(flood, options, options.duration + 2 * FLOOD_LEAD_S);
    await new Promise((resolve) => setTimeout(resolve, FLOOD_LEAD_S * 1000));
    flooded.push(
      await measure(
        { ...client, name: `${client.name}, under the flood` },
        {
          ...options,
          warmup: 0,
        },
      ),
    );
    assertClean(flood, `${flood.name} (the flood)`, await flooding);
  }
  const ratios = flooded.map((m, i) => m.requestsPerSecond.mean / alone[i]!.requestsPerSecond.mean);
  const meanRps = (rows: Measurement[]) =>
    rows.reduce((sum, m) => sum + m.requestsPerSecond.mean, 0) / rows.length;
  const row = (rows: Measurement[], name: string): Measurement => ({
    ...rows[0]!,
    scenario: name,
    requestsPerSecond: { mean: meanRps(rows), stddev: 0 },
    latencyMs: {
      p50: median(rows.map((m) => m.latencyMs.p50)),
      p99: Math.max(...rows.map((m) => m.latencyMs.p99)),
      mean: rows.reduce((sum, m) => sum + m.latencyMs.mean, 0) / rows.length,
    },
    responses: rows.reduce((sum, m) => sum + m.responses, 0),
    cpu: { ...rows[0]!.cpu, serverMs: rows.reduce((sum, m) => sum + m.cpu.serverMs, 0) },
  });
  return [
    row(alone, `${client.name}, alone`),
    { ...row(flooded, `${client.name}, under the flood`), helloRps: meanRps(alone), ratios },
  ];
}
