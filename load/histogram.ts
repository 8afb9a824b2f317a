/**
 * Latency histograms: HDR histograms of microseconds (1 µs to one hour, three significant digits),
 * the one type every engine records into, so closed loop, open loop and events compare directly.
 */
import * as hdr from 'hdr-histogram-js';

const LOWEST_US = 1;
const HIGHEST_US = 3_600_000_000;

/** Percentiles in milliseconds (microsecond resolution), as reported everywhere. */
export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/** One point of a percentile curve: the latency (ms) at `percentile`. */
export interface PercentilePoint {
  percentile: number;
  ms: number;
}

/** Percentiles of the curve drawn in load.html: ever closer to 100, as HDR plots show them. */
const CURVE_PERCENTILES = [0, 10, 25, 50, 75, 90, 95, 97.5, 99, 99.5, 99.75, 99.9, 99.95, 99.99, 99.995, 99.999, 100];

export class LatencyHistogram {
  private readonly h: hdr.Histogram;

  constructor(encoded?: string) {
    if (encoded) {
      this.h = hdr.decodeFromCompressedBase64(encoded, 32, false);
    } else {
      this.h = hdr.build({
        bitBucketSize: 32,
        useWebAssembly: false,
        autoResize: false,
        lowestDiscernibleValue: LOWEST_US,
        highestTrackableValue: HIGHEST_US,
        numberOfSignificantValueDigits: 3,
      });
    }
  }

  get count(): number {
    return this.h.totalCount;
  }

  recordMs(ms: number): void {
    this.h.recordValue(Math.min(HIGHEST_US, Math.max(LOWEST_US, Math.round(ms * 1000))));
  }

  add(other: LatencyHistogram): void {
    this.h.add(other.h);
  }

  reset(): void {
    this.h.reset();
  }

  /** Latency at a percentile (0–100), in ms. */
  percentileMs(p: number): number {
    return this.count === 0 ? 0 : this.h.getValueAtPercentile(p) / 1000;
  }

  summary(): LatencySummary {
    if (this.count === 0) return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
    // Percentiles are reported at the top of their bucket, which can sit a hair above the true max.
    const max = this.h.maxValue / 1000;
    const at = (p: number): number => Math.min(this.percentileMs(p), max);
    return {
      count: this.count,
      min: this.h.minNonZeroValue / 1000,
      mean: round3(this.h.mean / 1000),
      p50: at(50),
      p90: at(90),
      p99: at(99),
      p999: at(99.9),
      max,
    };
  }

  curve(): PercentilePoint[] {
    if (this.count === 0) return [];
    return CURVE_PERCENTILES.map((percentile) => ({ percentile, ms: this.percentileMs(percentile) }));
  }

  /** Compressed HDR form (the standard base64 encoding: other HDR tools can read it). */
  encode(): string {
    return hdr.encodeIntoCompressedBase64(this.h);
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
