import type { SearchableSkill } from "@/lib/server/search/skill-search";

function native(name: string, category: string, description: string, whenToUse: string | null = null): SearchableSkill {
  return { name, category, description, whenToUse, kind: "native" };
}

function subprocess(name: string, category: string, description: string): SearchableSkill {
  return { name, category, description, whenToUse: null, kind: "subprocess" };
}

/**
 * A realistic skill set for ranking tests: the four bundled native skills of seed 004, the console's
 * subprocess skills, and distractors that share words with them (service, log, report, disk, port,
 * process, database, check…). Frozen, like a registry snapshot.
 */
export const SEARCH_FIXTURE_SKILLS: readonly SearchableSkill[] = Object.freeze([
  // Seed 004's bundled native skills.
  native(
    "deploy-service",
    "devops",
    "Deploy a service to a remote host via SSH, verify it started and roll back to the previous release on failure.",
    "When the user asks to deploy, release or roll back a service.",
  ),
  native(
    "log-analyzer",
    "analysis",
    "Analyse a log file: count entries by level and list the top error patterns.",
    "When the user wants to understand what went wrong from logs.",
  ),
  native(
    "daily-report",
    "communication",
    "Generate the daily activity report and send it by email or chat.",
    "At the end of the day, or when someone asks for a summary of today's work.",
  ),
  native(
    "health-check",
    "system",
    "Check the health of services: HTTP endpoints answer, systemd units are active and disks have room.",
    "When something seems down, or before and after a deploy.",
  ),
  // The console's subprocess skills.
  subprocess("disk_usage", "system", "Report disk usage per mounted filesystem: size, used and free space."),
  subprocess("disk_cleaner", "system", "Free disk space by deleting old temporary files and rotated archives."),
  subprocess("process_list", "system", "List running processes with PID, CPU and memory usage."),
  subprocess("kill_process", "system", "Send a signal to a process by PID to stop it."),
  subprocess("listening_ports", "network", "List the TCP and UDP ports this host is listening on, with the owning program."),
  subprocess("log_scan", "analysis", "Scan a log file for lines matching a pattern and return them."),
  // Distractors sharing words with the skills above.
  native("backup-database", "data", "Back up a PostgreSQL database to a compressed dump file."),
  native("restore-database", "data", "Restore a database from a dump file made by backup-database."),
  native("rotate-logs", "system", "Rotate and compress application log files on a schedule."),
  subprocess("service_restart", "system", "Restart a systemd service and wait until it is active again."),
  native("deployment-status", "devops", "Show the status and history of recent deployments."),
  native("ssl-certificate-check", "security", "Check when the TLS certificates of HTTP endpoints expire."),
  subprocess("user_accounts", "security", "List local user accounts and their last login."),
  native("send-email", "communication", "Send an email message through the configured SMTP server."),
  native("weekly-summary", "communication", "Summarise the week's calls and approvals for the team."),
  native("metrics-dashboard", "analysis", "Collect CPU, memory and network metrics and render a dashboard."),
  subprocess("firewall_rules", "network", "Show the firewall rules that open or block incoming traffic."),
  subprocess("dns_lookup", "network", "Resolve a host name to its DNS records."),
  subprocess("docker_containers", "devops", "List Docker containers with their image and status."),
  subprocess("cron_jobs", "system", "List scheduled cron jobs of every user."),
  native("error-tracker", "analysis", "Group application exceptions reported to the tracking service by release."),
  subprocess("file_search", "system", "Find files by name or content under a folder."),
]);
