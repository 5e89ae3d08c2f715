// Work: what preparation produces.
export type { Candidate, CandidateSkill, EvidenceRef, DiffTarget, VirtualDiffDraft, CycleTrigger, CycleTriggerKind, ModelCheck } from './work/types';
export { makeVirtualDiff } from './work/virtual-diff';
export type { FileEdit } from './work/virtual-diff';
// View: the repository as detectors read it.
export { createRepositoryView, sha256Of, gitBlobId } from './view/repository-view';
export type { RepositoryView } from './view/repository-view';
export { gitHistory, parseGitPatch } from './view/git-history';
export type { GitHistory, FileDiff, DiffHunk, CommitRef, CommitDiff } from './view/git-history';
// Detectors.
export type { Detector, DetectorContext, DetectorResult, Frontier } from './detectors/types';
export { buildFrontier, frontierSeeds } from './cycle/frontier';
export type { FrontierBounds } from './cycle/frontier';
// Cycle: score, land, retire; freshness.
export { runCycle, FRONTIER_COMMITS } from './cycle/run-cycle';
export { heldByDetector } from './cycle/held';
export type { CycleOptions, CycleResult, DetectorReport, ModelAssist, ModelContext, ModelProposal } from './cycle/run-cycle';
export { claimKey } from './cycle/land';
export { READY_THRESHOLD, SCORE_WEIGHTS, usefulness, suppressed, SUPPRESS_MIN_NEGATIVE, SUPPRESS_USEFULNESS_FLOOR } from './cycle/score';
export type { ScoreParts, FeedbackCounts } from './cycle/score';
export { markStale, currentHash, changedEvidence } from './cycle/freshness';
// Feed: what surfaces serve.
export { PreparedWork } from './feed/prepared-work';
export { reRedactStoredWork, REDACTED_PATCH_REASON } from './feed/re-redact';
export type { PreparedWorkOptions, ExportPayload } from './feed/prepared-work';
export { FEED_CAP, allowedActions, feedCard, inspectCard } from './feed/cards';
export type { CardAction, FeedCard, WireEvidence } from './feed/cards';
export { canTransition, FINAL_STATES } from './work/lifecycle';
export type { Transition } from './work/lifecycle';
// Events and errors.
export { EngineEvents, ENGINE_EVENT_TYPES } from './events/engine-events';
export type { EngineEvent, EngineEventType, EngineEventListener } from './events/engine-events';
export { EngineError } from './errors';
export type { EngineErrorCode } from './errors';
export { systemCpuLoad, gpuLoad, idleRefusal, IDLE_SAMPLE_MS } from './cycle/idle';
export type { LoadProbes } from './cycle/idle';
export { CycleScheduler, DEFAULT_DEBOUNCE_MS, DEFAULT_RETRY_MS } from './cycle/scheduler';
export type { SchedulerOptions } from './cycle/scheduler';
export { defaultDetectors } from './detectors';
// Model: briefs, rationales, draft prompts and angles written by the model from indexed text.
export { createModelAssist, DEFAULT_MODEL_CALLS_PER_CYCLE, BRIEF_STRENGTH_FACTOR } from './model/model-assist';
export { CHECK_CALLS_PER_CYCLE, verdictOf } from './model/check-held';
export type { ChatClient, ModelAssistOptions, ModelAssistHandle } from './model/model-assist';
export { NON_TRIVIAL_MIN_STRENGTH, ANGLE_MAX_FILE_BYTES, PASS_CAPS } from './model/plan';
export { ANGLE_STRENGTH, MAX_ANGLES_PER_FILE, ANGLE_LINE_SLACK, parseAngles, groundAngle } from './model/angles';
export type { Angle } from './model/angles';
export { RATIONALE_MAX_WORDS } from './model/answers';
export { researchBriefPrompt, rationalePrompt, draftPrompt, anglePrompt, EXCERPT_CONTEXT_LINES, PROMPT_BUDGET_CHARS } from './model/prompts';
export type { PromptMessage } from './model/prompts';
export { sessionRefusal } from './cycle/session';
// Signals: composer lifecycle snapshots (spec 4.3, 6).
export { ingestComposerSnapshot } from './signals/composer';
export type { ComposerIntake } from './signals/composer';
export { checkCapabilities } from './signals/capabilities';
export { WORK_STYLE_MULTIPLIERS, workStyleMultiplier } from './signals/work-style';
// Goals: user-declared intents and their reconciliation against the repository.
export { Goals, goalView } from './goals/goals';
export type { GoalView, GoalDeclaration, GoalsOptions } from './goals/goals';
export { reconcile, canonicalRelatedPath, RECONCILIATION_STATES } from './goals/evidence';
export type { GoalEvidence, Reconciliation, ReconciliationState } from './goals/evidence';
export { Predictions, predictionView } from './predictions/predictions';
export type { PredictionView, PredictionsOptions, Briefing, BriefingItem } from './predictions/predictions';
export { DRAFTING_STATES, composerContext } from './predictions/composer-intent';
export { commitPatterns, leadingVerb, readCommitNames, PATTERN_MIN, PATTERN_WINDOW } from './predictions/patterns';
export type { CommitNames, CommitPattern } from './predictions/patterns';
export type { ComposerSignal, ComposerContext } from './predictions/composer-intent';
export { BASE_WEIGHT, DEMOTION, demote, arcArea, changedPaths } from './predictions/rules';
export { HISTORY_KEEP, HISTORY_MIN, HISTORY_MAX, HISTORY_WINDOW, historyEntries } from './predictions/history';
export type { HistoryEntry } from './predictions/history';
export { SHIFT_RUN, CATEGORY_WINDOW, categoryOf, detectShift } from './predictions/category';
export type { CategoryShift } from './predictions/category';
export { CONTEXT_INJECTIONS, DEFAULT_INTENT_POLICY, scaledKeep } from './predictions/policy';
export type { ContextInjection, IntentPolicy } from './predictions/policy';
export { EVIDENCE_THRESHOLD, EVIDENCE_TOP, EVIDENCE_MIN_PATHS, evidenceCoverage } from './resolve/coverage';
// Resolve: a prompt to a briefing, served from a ready prediction when it matches.
export { Resolver, DEFAULT_BRIEFING_BUDGET, tokensOf, promptHash } from './resolve/resolve';
export type { ResolveRequest, ResolutionView, ResolveCard, Alternative, ResolverOptions, Suggestion } from './resolve/resolve';
export { explainResolution } from './resolve/explain';
export type { ResolutionExplanation } from './resolve/explain';
export { HIT_THRESHOLD, jaccard, promptKey, tokenSet } from './resolve/similarity';
// Skills: SKILL.md folders in repo-local roots (global ones on request), zones, the skills loop, ranking.
export { SKILL_ZONES } from './skills/types';
export type { Skill, SkillZone, SkillCatalogue, SkillDiagnostic, SkillRootReport } from './skills/types';
export { discoverSkills, skillId, SKILL_FILE, SKILL_FILE_MAX_BYTES, SKILL_BODY_CHARS, SKILL_MAX_DEPTH, SKILLS_PER_ROOT_MAX } from './skills/discover';
export type { DiscoverOptions } from './skills/discover';
export { GLOBAL_SKILL_ROOTS } from './skills/roots';
export { parseSkillFile, SKILL_NAME_MAX, SKILL_DESCRIPTION_MAX } from './skills/front-matter';
export { zoneAllows } from './skills/zones';
export type { SkillDestination } from './skills/zones';
export { MIN_RELEVANCE, relevance, termSet } from './skills/relevance';
export { skillWeight, NEUTRAL_WEIGHT, MAX_WEIGHT } from './skills/weights';
export type { SkillCounts } from './skills/weights';
export { SkillRanker, DEFAULT_SKILLS_PER_WORK } from './skills/ranker';
export type { WeighedSkill, SkillMatch, RankOptions } from './skills/ranker';
export { runSkillsLoop } from './skills/loop';
export type { SkillLoopReport } from './skills/loop';
export { withSkills, GUIDANCE_BODY_CHARS } from './skills/assign';
export type { CycleSkills } from './skills/assign';
export { Skills } from './skills/skills';
export type { SkillsOptions, SkillList } from './skills/skills';
export { skillWire, inspectSkill, briefingSkills, cardSkills } from './skills/views';
export type { SkillWire, BriefingSkill, SkillAction } from './skills/views';

// Deep-Run: long-horizon sessions that prepare only (spec 1 invariant 6; docs/deep-run.md).
export { DeepRuns } from './deep-run/sessions';
export type { DeepRunRequest, DeepRunDefaults } from './deep-run/sessions';
export { DEEP_RUN_STEP_JOB, DEFAULT_TICK_MS } from './deep-run/options';
export type { DeepRunsOptions, DeepRunModel } from './deep-run/options';
export type { DeepRunStepPayload, DeepRunStepResult } from './deep-run/step';
export { PRESET_OVERRIDES, DEFAULT_COST_CAP_USD, MAX_DURATION_MINUTES, MAX_COST_CAP_USD, layerPreset } from './deep-run/presets';
export type { BundleBaseline, PresetOverrides } from './deep-run/presets';
export {
  HOSTED_PRICE_PER_MILLION_USD,
  LOCAL_PRICE,
  ESTIMATE_CHARS_PER_TOKEN,
  PRECHECK_CHARS_PER_TOKEN,
  MESSAGE_OVERHEAD_TOKENS,
  SPEND_METHOD,
  SpendMeter,
  costUsd,
  defaultPrice,
  estimatePromptTokens,
  estimateCompletionTokens,
} from './deep-run/spend';
export type { Price, StepSpend } from './deep-run/spend';
export { CallHeld, meteredChat, DEFAULT_CALL_MAX_TOKENS } from './deep-run/metered-chat';
export type { UsageChatClient, MeterScope } from './deep-run/metered-chat';
export { allTargets, stepTargets } from './deep-run/targets';
export type { StepTarget } from './deep-run/targets';
export { DEEP_RUN_UNITS, PRODUCED_LISTED, deepRunView, deadlineBy } from './deep-run/view';
export type { DeepRunView, ProducedCard } from './deep-run/view';
export { limitReached } from './deep-run/limits';
export type { SessionEnd } from './deep-run/limits';
