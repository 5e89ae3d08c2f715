CREATE TABLE "chunk_embeddings" (
	"workspace_id" text NOT NULL,
	"model" text NOT NULL,
	"path" text NOT NULL,
	"chunk" integer NOT NULL,
	"content_key" text NOT NULL,
	"start_line" integer NOT NULL,
	"end_line" integer NOT NULL,
	"dims" integer NOT NULL,
	"embedding" real[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chunk_embeddings_workspace_id_model_path_chunk_pk" PRIMARY KEY("workspace_id","model","path","chunk"),
	CONSTRAINT "chunk_embeddings_dims_check" CHECK ("chunk_embeddings"."dims" > 0 AND cardinality("chunk_embeddings"."embedding") = "chunk_embeddings"."dims"),
	CONSTRAINT "chunk_embeddings_lines_check" CHECK ("chunk_embeddings"."start_line" >= 1 AND "chunk_embeddings"."end_line" >= "chunk_embeddings"."start_line")
);
--> statement-breakpoint
ALTER TABLE "chunk_embeddings" ADD CONSTRAINT "chunk_embeddings_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chunk_embeddings_path_idx" ON "chunk_embeddings" USING btree ("workspace_id","path");--> statement-breakpoint
-- pgvector where the server offers it (hand-written; drizzle-kit does not generate this): the vectors
-- stay real[] either way, and similarity is computed in SQL through a cast when the extension is
-- there. Anything that stops it (not installed, no privilege, PGlite) leaves arrays and in-process
-- similarity; the migration itself never fails over it.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;
  END IF;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pgvector not enabled (%): chunk similarity is computed in process', SQLERRM;
END
$$;
