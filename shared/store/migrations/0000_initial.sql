CREATE TABLE "evidence" (
	"id" text PRIMARY KEY NOT NULL,
	"work_product_id" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"path" text NOT NULL,
	"line_start" integer,
	"line_end" integer,
	"content_hash" text,
	"commit" text,
	"note" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "evidence_lines_check" CHECK (("evidence"."line_start" IS NULL OR "evidence"."line_start" >= 1) AND ("evidence"."line_end" IS NULL OR ("evidence"."line_start" IS NOT NULL AND "evidence"."line_end" >= "evidence"."line_start")))
);
--> statement-breakpoint
CREATE TABLE "feedback" (
	"id" text PRIMARY KEY NOT NULL,
	"work_product_id" text,
	"resolution_id" text,
	"value" text NOT NULL,
	"client_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "feedback_value_check" CHECK ("feedback"."value" IN ('useful', 'partial', 'irrelevant', 'wrong')),
	CONSTRAINT "feedback_target_check" CHECK (num_nonnulls("feedback"."work_product_id", "feedback"."resolution_id") = 1)
);
--> statement-breakpoint
CREATE TABLE "goals" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"related_files" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reconciliation_state" text DEFAULT 'unreconciled' NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "goals_status_check" CHECK ("goals"."status" IN ('active', 'paused', 'abandoned', 'achieved'))
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"state" text NOT NULL,
	"payload" jsonb,
	"error" text,
	"progress" double precision,
	"result" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "jobs_state_check" CHECK ("jobs"."state" IN ('queued', 'running', 'completed', 'failed', 'timed_out', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "predictions" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"source" text NOT NULL,
	"goal_id" text,
	"composer_session_id" text,
	"title" text NOT NULL,
	"summary" text DEFAULT '' NOT NULL,
	"weight" double precision DEFAULT 1 NOT NULL,
	"state" text DEFAULT 'drafting' NOT NULL,
	"stale_reason" text,
	"stale_at" timestamp with time zone,
	"path_hashes" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "predictions_source_check" CHECK ("predictions"."source" IN ('goal', 'composer_intent', 'arc', 'pattern', 'history')),
	CONSTRAINT "predictions_state_check" CHECK ("predictions"."state" IN ('drafting', 'ready', 'stale', 'adopted')),
	CONSTRAINT "predictions_stale_reason_check" CHECK ("predictions"."stale_reason" IS NULL OR "predictions"."stale_reason" IN ('file_change', 'commit', 'category_shift', 'adoption', 'draft_cleared', 'draft_abandoned'))
);
--> statement-breakpoint
CREATE TABLE "resolutions" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"prompt_hash" text NOT NULL,
	"briefing" text DEFAULT '' NOT NULL,
	"evidence" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"draft" text,
	"alternatives_considered" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"predicted_response" text,
	"briefing_token_used" integer DEFAULT 0 NOT NULL,
	"briefing_token_budget" integer DEFAULT 0 NOT NULL,
	"composer_event_id" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "resolutions_prompt_hash_check" CHECK ("resolutions"."prompt_hash" ~ '^[0-9a-f]{64}$'),
	CONSTRAINT "resolutions_tokens_check" CHECK ("resolutions"."briefing_token_used" >= 0 AND "resolutions"."briefing_token_budget" >= 0)
);
--> statement-breakpoint
CREATE TABLE "signal_events" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "signal_events_kind_check" CHECK ("signal_events"."kind" IN ('composer_lifecycle', 'file_change', 'commit', 'category_shift', 'adoption'))
);
--> statement-breakpoint
CREATE TABLE "work_products" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"kind" text NOT NULL,
	"state" text DEFAULT 'candidate' NOT NULL,
	"title" text NOT NULL,
	"summary" text DEFAULT '' NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"rationale" text DEFAULT '' NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "work_products_kind_check" CHECK ("work_products"."kind" IN ('review_note', 'bug_hypothesis', 'docs_drift', 'virtual_diff', 'research_brief', 'prediction_draft')),
	CONSTRAINT "work_products_state_check" CHECK ("work_products"."state" IN ('candidate', 'hidden', 'stale', 'superseded', 'ready'))
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" text PRIMARY KEY NOT NULL,
	"root_path" text NOT NULL,
	"name" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspaces_root_path_unique" UNIQUE("root_path")
);
--> statement-breakpoint
ALTER TABLE "evidence" ADD CONSTRAINT "evidence_work_product_id_work_products_id_fk" FOREIGN KEY ("work_product_id") REFERENCES "work_products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feedback" ADD CONSTRAINT "feedback_work_product_id_work_products_id_fk" FOREIGN KEY ("work_product_id") REFERENCES "work_products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feedback" ADD CONSTRAINT "feedback_resolution_id_resolutions_id_fk" FOREIGN KEY ("resolution_id") REFERENCES "resolutions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "goals" ADD CONSTRAINT "goals_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "predictions" ADD CONSTRAINT "predictions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "predictions" ADD CONSTRAINT "predictions_goal_id_goals_id_fk" FOREIGN KEY ("goal_id") REFERENCES "goals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resolutions" ADD CONSTRAINT "resolutions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_events" ADD CONSTRAINT "signal_events_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_products" ADD CONSTRAINT "work_products_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "evidence_work_product_idx" ON "evidence" USING btree ("work_product_id","position");--> statement-breakpoint
CREATE INDEX "evidence_path_idx" ON "evidence" USING btree ("path");--> statement-breakpoint
CREATE INDEX "feedback_work_product_idx" ON "feedback" USING btree ("work_product_id");--> statement-breakpoint
CREATE INDEX "feedback_resolution_idx" ON "feedback" USING btree ("resolution_id");--> statement-breakpoint
CREATE INDEX "goals_workspace_status_idx" ON "goals" USING btree ("workspace_id","status");--> statement-breakpoint
CREATE INDEX "jobs_state_idx" ON "jobs" USING btree ("state");--> statement-breakpoint
CREATE INDEX "jobs_created_idx" ON "jobs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "predictions_workspace_state_idx" ON "predictions" USING btree ("workspace_id","state");--> statement-breakpoint
CREATE INDEX "predictions_goal_idx" ON "predictions" USING btree ("goal_id");--> statement-breakpoint
CREATE INDEX "resolutions_workspace_idx" ON "resolutions" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "signal_events_kind_time_idx" ON "signal_events" USING btree ("kind","occurred_at");--> statement-breakpoint
CREATE INDEX "signal_events_workspace_time_idx" ON "signal_events" USING btree ("workspace_id","occurred_at");--> statement-breakpoint
CREATE INDEX "work_products_workspace_state_idx" ON "work_products" USING btree ("workspace_id","state");