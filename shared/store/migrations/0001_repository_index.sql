CREATE TABLE "index_blobs" (
	"workspace_id" text NOT NULL,
	"key" text NOT NULL,
	"text" text NOT NULL,
	"symbols" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "index_blobs_workspace_id_key_pk" PRIMARY KEY("workspace_id","key")
);
--> statement-breakpoint
CREATE TABLE "index_files" (
	"workspace_id" text NOT NULL,
	"path" text NOT NULL,
	"blob_key" text,
	"sha256" text,
	"language" text,
	"bytes" integer,
	"mtime_ms" double precision,
	"removed" boolean DEFAULT false NOT NULL,
	"generation" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "index_files_workspace_id_path_pk" PRIMARY KEY("workspace_id","path")
);
--> statement-breakpoint
CREATE TABLE "index_state" (
	"workspace_id" text PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"generation" bigint DEFAULT 0 NOT NULL,
	"head" text,
	"signals" jsonb NOT NULL,
	"files_indexed" integer DEFAULT 0 NOT NULL,
	"skipped" jsonb NOT NULL,
	"error" text,
	"scope_key" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "index_state_state_check" CHECK ("index_state"."state" IN ('indexing', 'ready', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "index_blobs" ADD CONSTRAINT "index_blobs_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "index_files" ADD CONSTRAINT "index_files_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "index_state" ADD CONSTRAINT "index_state_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_files_generation_idx" ON "index_files" USING btree ("workspace_id","generation");