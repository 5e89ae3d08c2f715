CREATE TABLE "deep_run_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"preset" text NOT NULL,
	"bundle" text NOT NULL,
	"settings" jsonb NOT NULL,
	"duration_minutes" integer NOT NULL,
	"cost_cap_usd" double precision NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"deadline" timestamp with time zone NOT NULL,
	"state" text DEFAULT 'running' NOT NULL,
	"stop_reason" text,
	"stop_detail" text,
	"ended_at" timestamp with time zone,
	"next_step" integer DEFAULT 1 NOT NULL,
	"running_step" integer,
	"step_claimed_at" timestamp with time zone,
	"step_claimed_by" text,
	"steps_done" integer DEFAULT 0 NOT NULL,
	"steps_interrupted" integer DEFAULT 0 NOT NULL,
	"model_calls" integer DEFAULT 0 NOT NULL,
	"prompt_tokens" integer DEFAULT 0 NOT NULL,
	"completion_tokens" integer DEFAULT 0 NOT NULL,
	"tokens_estimated" boolean DEFAULT false NOT NULL,
	"spend_usd" double precision DEFAULT 0 NOT NULL,
	"produced" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "deep_run_sessions_preset_check" CHECK ("deep_run_sessions"."preset" IN ('conservative', 'balanced', 'aggressive')),
	CONSTRAINT "deep_run_sessions_state_check" CHECK ("deep_run_sessions"."state" IN ('running', 'paused', 'stopped', 'finished', 'failed')),
	CONSTRAINT "deep_run_sessions_stop_reason_check" CHECK ("deep_run_sessions"."stop_reason" IS NULL OR "deep_run_sessions"."stop_reason" IN ('duration', 'max_session_minutes', 'cost_cap', 'pause', 'stop', 'daemon_restart', 'error')),
	CONSTRAINT "deep_run_sessions_limits_check" CHECK ("deep_run_sessions"."duration_minutes" >= 1 AND "deep_run_sessions"."cost_cap_usd" >= 0)
);
--> statement-breakpoint
ALTER TABLE "deep_run_sessions" ADD CONSTRAINT "deep_run_sessions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "deep_run_sessions_one_running_idx" ON "deep_run_sessions" USING btree ("workspace_id") WHERE state = 'running';--> statement-breakpoint
CREATE INDEX "deep_run_sessions_workspace_idx" ON "deep_run_sessions" USING btree ("workspace_id","created_at");