/** The detectors a cycle runs by default, cheapest first. None needs a model. */
import { docsDriftDetector } from './docs-drift/docs-drift';
import { draftDetector } from './drafts';
import { hotspotDetector } from './hotspots';
import { reviewDetector } from './review/review';
import type { Detector } from './types';

export function defaultDetectors(): Detector[] {
  return [reviewDetector, hotspotDetector, draftDetector, docsDriftDetector];
}
