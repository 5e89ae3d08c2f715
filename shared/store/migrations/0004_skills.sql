CREATE TABLE "skill_feedback" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"skill_id" text NOT NULL,
	"value" text NOT NULL,
	"client_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "skill_feedback_value_check" CHECK ("skill_feedback"."value" IN ('useful', 'partial', 'irrelevant', 'wrong'))
);
--> statement-breakpoint
CREATE TABLE "skill_loop_events" (
	"workspace_id" text NOT NULL,
	"event_id" text NOT NULL,
	"consumed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "skill_loop_events_workspace_id_event_id_pk" PRIMARY KEY("workspace_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "skill_states" (
	"workspace_id" text NOT NULL,
	"skill_id" text NOT NULL,
	"useful" integer DEFAULT 0 NOT NULL,
	"partial" integer DEFAULT 0 NOT NULL,
	"irrelevant" integer DEFAULT 0 NOT NULL,
	"wrong" integer DEFAULT 0 NOT NULL,
	"dismissed_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "skill_states_workspace_id_skill_id_pk" PRIMARY KEY("workspace_id","skill_id"),
	CONSTRAINT "skill_states_counts_check" CHECK ("skill_states"."useful" >= 0 AND "skill_states"."partial" >= 0 AND "skill_states"."irrelevant" >= 0 AND "skill_states"."wrong" >= 0)
);
--> statement-breakpoint
ALTER TABLE "skill_feedback" ADD CONSTRAINT "skill_feedback_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skill_loop_events" ADD CONSTRAINT "skill_loop_events_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skill_states" ADD CONSTRAINT "skill_states_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "skill_feedback_workspace_idx" ON "skill_feedback" USING btree ("workspace_id","created_at");