package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.Limit;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.LimitDeclaration;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.ResetDeclaration;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties.ScheduleDeclaration;

import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Converts limit declarations (the properties of one limit under {@code zae.limiter}) into {@link Limit}s, refusing
 * what breaks a rule with an {@link InvalidDeclarationException} that names the property.
 */
final class LimitConversion {

    private LimitConversion() {
    }

    /** The limits of one level, or {@code null} when it declares none. */
    static List<Limit> limits(String path, Map<String, LimitDeclaration> declarations) {
        if (declarations.isEmpty()) {
            return null;
        }
        List<Limit> limits = new ArrayList<>();
        declarations.forEach((name, declaration) -> limits.add(limit(path + "." + name, name, declaration)));
        return check(path, () -> Limit.validateLevel("limits", limits));
    }

    static Limit limit(String path, String name, LimitDeclaration d) {
        if (d.getMaxInFlight() != null) {
            return concurrency(path, name, d);
        }
        if (d.getLeaseTimeout() != null) {
            throw new InvalidDeclarationException(path + ".lease-timeout", "only a concurrency limit has a lease"
                    + " timeout; add max-in-flight or remove lease-timeout");
        }
        if (d.getCapacity() == null) {
            throw new InvalidDeclarationException(path + ".capacity", "a limit needs a capacity (tokens per refill"
                    + " period, or a quota's allowance), or max-in-flight for a concurrency limit", "Write"
                    + " '" + path + ".capacity' as a whole number greater than zero, such as capacity: 100, or"
                    + " '" + path + ".max-in-flight' for a concurrency limit.");
        }
        boolean drips = d.getRefillAmount() != null || d.getRefillPeriod() != null || d.getBurst() != null;
        if (d.getResetSchedule().size() > 1) {
            throw new InvalidDeclarationException(path + ".reset-schedule", "a quota has one reset schedule;"
                    + " write a single entry (one cron can express several instants, such as '0 0 1,15 * *')");
        }
        if (!d.getResetSchedule().isEmpty() && d.getResetAfter() != null) {
            throw new InvalidDeclarationException(path + ".reset-after", "a quota resets on a calendar"
                    + " (reset-schedule) or after each caller's first request (reset-after), not both");
        }
        if (d.getFixedWindow() != null && (!d.getResetSchedule().isEmpty() || d.getResetAfter() != null)) {
            throw new InvalidDeclarationException(path + ".fixed-window", "a quota resets at every multiple of a"
                    + " fixed window (fixed-window), on a calendar (reset-schedule) or after each caller's first"
                    + " request (reset-after): choose one");
        }
        if (d.getWindowOrigin() != null && d.getFixedWindow() == null) {
            throw new InvalidDeclarationException(path + ".window-origin", "only a fixed window has an origin;"
                    + " add fixed-window or remove window-origin");
        }
        boolean resets = !d.getResetSchedule().isEmpty() || d.getResetAfter() != null || d.getFixedWindow() != null;
        if (drips && resets) {
            throw new InvalidDeclarationException(path + (d.getRefillAmount() != null ? ".refill-amount"
                    : d.getRefillPeriod() != null ? ".refill-period" : ".burst"), "a quota does not drip: remove"
                    + " refill-amount, refill-period and burst, or remove the reset to make it a rate limit");
        }
        Limit limit;
        if (d.getFixedWindow() != null) {
            limit = check(path + ".fixed-window", () -> d.getWindowOrigin() == null
                    ? Limit.fixedWindow(name, d.getCapacity(), d.getFixedWindow())
                    : Limit.fixedWindow(name, d.getCapacity(), d.getFixedWindow(), d.getWindowOrigin()));
        } else if (!d.getResetSchedule().isEmpty()) {
            ResetDeclaration reset = d.getResetSchedule().get(0);
            String resetPath = path + ".reset-schedule[0]";
            ZoneId zone = check(resetPath + ".tz", () -> ScheduleEntry.zone("tz", reset.getTz()));
            if (reset.getCron() == null) {
                throw new InvalidDeclarationException(resetPath + ".cron", "a reset schedule needs a cron");
            }
            limit = checkFields(path, resetPath, d, () -> Limit.quota(name, d.getCapacity(), reset.getCron(), zone));
        } else if (d.getResetAfter() != null) {
            limit = checkFields(path, path, d, () -> Limit.sessionQuota(name, d.getCapacity(), d.getResetAfter()));
        } else {
            long capacity = d.getBurst() != null ? d.getBurst() : d.getCapacity();
            long amount = d.getRefillAmount() != null ? d.getRefillAmount() : d.getCapacity();
            Duration period = d.getRefillPeriod() != null ? d.getRefillPeriod() : Duration.ofMinutes(1);
            limit = checkFields(path, path, d, () -> Limit.custom(name, capacity, amount, period));
        }
        if (!d.getSchedule().isEmpty()) {
            List<ScheduleEntry> entries = new ArrayList<>();
            for (int i = 0; i < d.getSchedule().size(); i++) {
                ScheduleDeclaration s = d.getSchedule().get(i);
                String entryPath = path + ".schedule[" + i + "]";
                ZoneId zone = check(entryPath + ".tz", () -> ScheduleEntry.zone("tz", s.getTz()));
                if (s.getCron() == null) {
                    throw new InvalidDeclarationException(entryPath + ".cron", "a schedule entry needs a cron");
                }
                entries.add(checkFields(entryPath, entryPath, null, () -> ScheduleEntry.of(s.getCron(), zone,
                        s.getScale(), s.getCapacity(), s.getRefillAmount(), s.getRefillPeriod())));
            }
            Limit base = limit;
            limit = check(path + ".schedule", () -> base.withSchedule(entries));
        }
        limit = d.isSoft() ? limit.soft() : limit;
        if (d.isLocalReservations()) {
            Limit base = limit;
            limit = check(path + ".local-reservations", base::withLocalReservations);
        }
        return limit;
    }

    private static Limit concurrency(String path, String name, LimitDeclaration d) {
        if (d.getCapacity() != null || d.getRefillAmount() != null || d.getRefillPeriod() != null
                || d.getBurst() != null || !d.getResetSchedule().isEmpty() || d.getResetAfter() != null
                || d.getFixedWindow() != null || d.getWindowOrigin() != null) {
            throw new InvalidDeclarationException(path + ".max-in-flight", "a concurrency limit has only"
                    + " max-in-flight (and lease-timeout, soft, schedule); remove capacity, refill, burst and resets,"
                    + " or declare them as a separate limit");
        }
        if (d.isLocalReservations()) {
            throw new InvalidDeclarationException(path + ".local-reservations", "a concurrency limit never reserves"
                    + " (a slot must be visible to every process); remove local-reservations");
        }
        Limit limit = check(path + ".max-in-flight", () -> d.getLeaseTimeout() == null
                ? Limit.concurrency(name, d.getMaxInFlight())
                : Limit.concurrency(name, d.getMaxInFlight(), d.getLeaseTimeout()));
        return d.isSoft() ? limit.soft() : limit;
    }

    /**
     * Runs a check whose {@link ValidationException} names a field of the limit ({@code limit rpm capacity}) or of a
     * schedule entry; the property reported ends at that field: {@code path.capacity}, {@code cronPath.cron}.
     */
    private static <T> T checkFields(String path, String cronPath, LimitDeclaration d, Supplier<T> check) {
        return InvalidDeclarationException.check(e -> {
            String field = e.field().substring(e.field().lastIndexOf(' ') + 1);
            return switch (field) {
                case "cron", "schedule" -> cronPath + ".cron";
                case "capacity" -> path + (d != null && d.getBurst() != null ? ".burst" : ".capacity");
                case "refillAmount" -> path + (d == null || d.getRefillAmount() != null ? ".refill-amount"
                        : ".capacity");
                case "scale", "refillPeriod", "resetAfter" -> InvalidDeclarationException.property(path, field);
                // the one entry rule whose value is the scale: a scale beside absolute values
                default -> d == null && e.value() instanceof Double ? path + ".scale" : path;
            };
        }, check);
    }

    static <T> T check(String path, Supplier<T> check) {
        return InvalidDeclarationException.check(path, check);
    }
}
