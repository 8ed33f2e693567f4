-- AlterTable
ALTER TABLE "compliance_reports" ADD COLUMN     "approval_task_id" VARCHAR(100),
ADD COLUMN     "workflow_id" VARCHAR(100);

-- CreateIndex
CREATE INDEX "compliance_reports_tenant_id_workflow_id_idx" ON "compliance_reports"("tenant_id", "workflow_id");
