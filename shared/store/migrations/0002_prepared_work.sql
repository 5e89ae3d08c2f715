ALTER TABLE "work_products" ADD COLUMN "detector" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "work_products" ADD COLUMN "claim_key" text;--> statement-breakpoint
ALTER TABLE "work_products" ADD COLUMN "score" double precision;--> statement-breakpoint
ALTER TABLE "work_products" ADD COLUMN "state_reason" text;--> statement-breakpoint
CREATE INDEX "work_products_claim_idx" ON "work_products" USING btree ("workspace_id","claim_key");