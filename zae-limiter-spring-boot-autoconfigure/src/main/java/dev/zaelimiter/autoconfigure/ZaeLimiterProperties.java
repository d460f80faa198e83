package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Unavailable;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Configuration of zae-limiter under {@code zae.limiter}: which store, how it behaves, and the limits declared for
 * the system, resources and entities. Names with characters other than letters, digits and {@code -} (such as
 * {@code openai/gpt-4} or {@code user:42}) are written in brackets as map keys: {@code "[openai/gpt-4]"}.
 *
 * <p>Longer than most files on purpose: the whole zae.limiter property tree (store, declarations at every level,
 * limits, schedules, resets) is one bindable class, as Spring Boot's own properties classes are, so that binding,
 * metadata and failure reports follow one structure.
 */
@ConfigurationProperties("zae.limiter")
public class ZaeLimiterProperties {

    /** Whether to configure a rate limiter at all. */
    private boolean enabled = true;

    /**
     * Which store keeps limits and buckets: auto picks DynamoDB when a client and a table are configured, else Redis
     * when the Redis store is on the class path and a Lettuce connection (or zae.limiter.redis.url) is there.
     */
    private StoreType store = StoreType.AUTO;

    /** Key prefix in the shared store, so that applications can share a table. */
    private String namespace = "default";

    /** What to do when the store fails: block (raise) or allow (admit without recording). */
    private Unavailable onUnavailable = Unavailable.BLOCK;

    /** How long a process trusts configuration it read from the store (at least 10 seconds). */
    private Duration stampTtl = Duration.ofSeconds(60);

    /**
     * Deadline of every request to the DynamoDB or Redis store, retries included; past it the call fails as
     * unavailable and the on-unavailable policy applies. A write that timed out may still land later.
     */
    private Duration storeTimeout = Duration.ofMillis(500);

    /**
     * Whether a filter rule or @RateLimited method that consumes a limit no declaration defines for its resource
     * fails startup; when false such a limit is only logged as a warning at startup, since it may still be set in
     * the store at run time (through RateLimiterAdmin or by another application sharing a DynamoDB table).
     */
    private boolean strictConsume = false;

    /** The circuit breaker around store calls. */
    private final Breaker circuitBreaker = new Breaker();

    private final DynamoDb dynamodb = new DynamoDb();

    private final Redis redis = new Redis();

    /** Usage history: what each entity consumed per limit, hour and day. */
    private final Usage usage = new Usage();

    /** Audit log: who changed what, when. */
    private final Audit audit = new Audit();

    /** How the declarations below are applied to the store at startup. */
    private final Declarations declarations = new Declarations();

    /** Which write operations the ratelimits actuator endpoint offers; all are off unless enabled here. */
    private final EndpointWrites endpointWrites = new EndpointWrites();

    /** Limits for every entity on every resource that has nothing more specific. */
    private final Level system = new Level();

    /** Per resource: default limits, cascade policy and disabled mode. */
    private Map<String, Resource> resources = new LinkedHashMap<>();

    /** Per entity: record (name, parent, cascade flag), disabled mode, and limits per resource. */
    private Map<String, EntityDeclaration> entities = new LinkedHashMap<>();

    /** The store kinds. */
    public enum StoreType {
        /**
         * DynamoDB when a {@code DynamoDbClient} bean exists and a table is configured; else Redis when its store
         * module is present and the application has a Lettuce connection or sets {@code zae.limiter.redis.url};
         * otherwise memory.
         */
        AUTO,
        /** The in-memory store of this process. */
        MEMORY,
        /** The DynamoDB store; fails startup without a {@code DynamoDbClient} bean. */
        DYNAMODB,
        /** The Redis store; fails startup without the Redis store module. */
        REDIS
    }

    /**
     * The circuit breaker: when the store kept failing for a whole cool-down (at least failure-threshold failed calls,
     * and at least half of the calls), decisions apply the on-unavailable policy without calling the store for
     * cool-down, then one call probes the store.
     */
    public static class Breaker {

        /** Whether to stop calling a store that keeps failing. */
        private boolean enabled = true;

        /** Store failures within one cool-down (and at least half of its calls) that open the circuit. */
        private int failureThreshold = 5;

        /** How long an open circuit skips the store before one call probes it again. */
        private Duration coolDown = Duration.ofSeconds(2);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getFailureThreshold() {
            return failureThreshold;
        }

        public void setFailureThreshold(int failureThreshold) {
            this.failureThreshold = failureThreshold;
        }

        public Duration getCoolDown() {
            return coolDown;
        }

        public void setCoolDown(Duration coolDown) {
            this.coolDown = coolDown;
        }
    }

    /** DynamoDB store settings. */
    public static class DynamoDb {

        /** The table; setting it lets store=auto choose DynamoDB. */
        private String table;

        /** Whether to create the table (and enable TTL) at startup when it is missing. */
        private boolean createTable = false;

        /** How a cascade writes child and parent: compensating (parallel writes) or transactional. */
        private CascadeWrite cascadeWrite = CascadeWrite.COMPENSATING;

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table;
        }

        public boolean isCreateTable() {
            return createTable;
        }

        public void setCreateTable(boolean createTable) {
            this.createTable = createTable;
        }

        public CascadeWrite getCascadeWrite() {
            return cascadeWrite;
        }

        public void setCascadeWrite(CascadeWrite cascadeWrite) {
            this.cascadeWrite = cascadeWrite;
        }

        /**
         * The DynamoDB store's cascade write modes, by the same names, so that these properties bind without the
         * DynamoDB store on the class path.
         */
        public enum CascadeWrite {
            /** Two parallel writes, the child's refunded when the parent's is refused. */
            COMPENSATING,
            /** Both writes in one DynamoDB transaction. */
            TRANSACTIONAL
        }
    }

    /**
     * Redis store settings. The store uses the application's Lettuce connection (a {@code RedisClient} bean, or the
     * client of Spring Data Redis's {@code LettuceConnectionFactory}), else {@code spring.data.redis.*}; {@code url}
     * points it at a Redis of its own instead.
     */
    public static class Redis {

        /** A Redis of the limiter's own, such as redis://host:6379/0; overrides the application's connection. */
        private String url;

        /** The start of every key the store writes; zae: followed by the namespace when not set. */
        private String keyPrefix;

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            this.url = url;
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }
    }

    /** A set of limits, keyed by limit name. */
    public static class Level {

        /** Limits keyed by name, such as rpm or tpm. */
        private Map<String, LimitDeclaration> limits = new LinkedHashMap<>();

        public Map<String, LimitDeclaration> getLimits() {
            return limits;
        }

        public void setLimits(Map<String, LimitDeclaration> limits) {
            this.limits = limits;
        }
    }

    /** A resource: default limits, cascade policy, disabled mode. */
    public static class Resource extends Level {

        /** Whether children cascade to their parents on this resource, unless an entity says otherwise. */
        private Boolean cascade;

        /** Whether limits are enforced on this resource: enabled, disabled or bypass. */
        private DisabledMode disabled;

        public Boolean getCascade() {
            return cascade;
        }

        public void setCascade(Boolean cascade) {
            this.cascade = cascade;
        }

        public DisabledMode getDisabled() {
            return disabled;
        }

        public void setDisabled(DisabledMode disabled) {
            this.disabled = disabled;
        }
    }

    /** An entity: its record, its mode for every resource, and its limits per resource. */
    public static class EntityDeclaration {

        /** Display name. */
        private String name;

        /** Parent entity id; the parent must be declared or already exist, and be a root. */
        private String parent;

        /** Whether calls also spend the parent's limits (unless a cascade policy says otherwise). */
        private boolean cascade;

        /** Mode of this entity on every resource: enabled, disabled or bypass. */
        private DisabledMode disabled;

        /** Limits, cascade policy and mode of this entity per resource ({@code _default_}: every resource). */
        private Map<String, Resource> resources = new LinkedHashMap<>();

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public String getParent() {
            return parent;
        }

        public void setParent(String parent) {
            this.parent = parent;
        }

        public boolean isCascade() {
            return cascade;
        }

        public void setCascade(boolean cascade) {
            this.cascade = cascade;
        }

        public DisabledMode getDisabled() {
            return disabled;
        }

        public void setDisabled(DisabledMode disabled) {
            this.disabled = disabled;
        }

        public Map<String, Resource> getResources() {
            return resources;
        }

        public void setResources(Map<String, Resource> resources) {
            this.resources = resources;
        }
    }

    /**
     * One limit. A dripping limit has a capacity (tokens per refill period, and the bucket size unless burst raises
     * it), an optional refill amount and a refill period (one minute when not set). A calendar quota has a capacity
     * (the allowance) and one reset-schedule; a session quota a capacity and reset-after; a concurrency limit
     * max-in-flight and optionally lease-timeout.
     */
    public static class LimitDeclaration {

        /** Tokens per refill period, and the bucket size unless burst is set; a quota's allowance. */
        private Long capacity;

        /** Tokens returned every refill period; defaults to capacity. */
        private Long refillAmount;

        /** The refill period; one minute when not set. */
        private Duration refillPeriod;

        /** The bucket size, when larger bursts than the rate are allowed. */
        private Long burst;

        /** Metered only: never rejects, may go into debt. */
        private boolean soft;

        /**
         * For a hot bucket shared by many processes: each process may reserve a small batch of tokens and serve calls
         * locally, with exact totals (a hard dripping limit without schedule only; see docs/hot-buckets.md).
         */
        private boolean localReservations;

        /** Windows with other parameters: the first matching entry wins. */
        private List<ScheduleDeclaration> schedule = new ArrayList<>();

        /** Makes the limit a calendar quota: the whole allowance comes back at the cron's edge. */
        private List<ResetDeclaration> resetSchedule = new ArrayList<>();

        /** Makes the limit a session quota: the allowance comes back this long after each first request. */
        private Duration resetAfter;

        /**
         * Makes the limit a fixed window: the allowance comes back whole at every multiple of this duration since
         * the window origin (such as 10s; whole milliseconds, at least 1ms).
         */
        private Duration fixedWindow;

        /** Where the fixed windows are aligned, as an ISO-8601 instant; the epoch when not set. */
        private Instant windowOrigin;

        /** Makes the limit a concurrency limit: at most this many calls in flight (capacity is not used). */
        private Long maxInFlight;

        /** For a concurrency limit: how long a slot lives without its lease being closed or extended (5m). */
        private Duration leaseTimeout;

        public Long getMaxInFlight() {
            return maxInFlight;
        }

        public void setMaxInFlight(Long maxInFlight) {
            this.maxInFlight = maxInFlight;
        }

        public Duration getLeaseTimeout() {
            return leaseTimeout;
        }

        public void setLeaseTimeout(Duration leaseTimeout) {
            this.leaseTimeout = leaseTimeout;
        }

        public Long getCapacity() {
            return capacity;
        }

        public void setCapacity(Long capacity) {
            this.capacity = capacity;
        }

        public Long getRefillAmount() {
            return refillAmount;
        }

        public void setRefillAmount(Long refillAmount) {
            this.refillAmount = refillAmount;
        }

        public Duration getRefillPeriod() {
            return refillPeriod;
        }

        public void setRefillPeriod(Duration refillPeriod) {
            this.refillPeriod = refillPeriod;
        }

        public Long getBurst() {
            return burst;
        }

        public void setBurst(Long burst) {
            this.burst = burst;
        }

        public boolean isSoft() {
            return soft;
        }

        public void setSoft(boolean soft) {
            this.soft = soft;
        }

        public boolean isLocalReservations() {
            return localReservations;
        }

        public void setLocalReservations(boolean localReservations) {
            this.localReservations = localReservations;
        }

        public List<ScheduleDeclaration> getSchedule() {
            return schedule;
        }

        public void setSchedule(List<ScheduleDeclaration> schedule) {
            this.schedule = schedule;
        }

        public List<ResetDeclaration> getResetSchedule() {
            return resetSchedule;
        }

        public void setResetSchedule(List<ResetDeclaration> resetSchedule) {
            this.resetSchedule = resetSchedule;
        }

        public Duration getResetAfter() {
            return resetAfter;
        }

        public void setResetAfter(Duration resetAfter) {
            this.resetAfter = resetAfter;
        }

        public Duration getFixedWindow() {
            return fixedWindow;
        }

        public void setFixedWindow(Duration fixedWindow) {
            this.fixedWindow = fixedWindow;
        }

        public Instant getWindowOrigin() {
            return windowOrigin;
        }

        public void setWindowOrigin(Instant windowOrigin) {
            this.windowOrigin = windowOrigin;
        }
    }

    /** A schedule window: a cron, a zone, and either a scale or absolute values. */
    public static class ScheduleDeclaration {

        /** Five-field cron describing the window, such as "* 9-17 * * MON-FRI". */
        private String cron;

        /** IANA time zone of the cron; UTC when not set. */
        private String tz;

        /** Multiplier of the base capacity and refill. */
        private Double scale;

        /** Absolute capacity during the window. */
        private Long capacity;

        /** Absolute refill amount during the window (with refill-period). */
        private Long refillAmount;

        /** Absolute refill period during the window (with refill-amount). */
        private Duration refillPeriod;

        public String getCron() {
            return cron;
        }

        public void setCron(String cron) {
            this.cron = cron;
        }

        public String getTz() {
            return tz;
        }

        public void setTz(String tz) {
            this.tz = tz;
        }

        public Double getScale() {
            return scale;
        }

        public void setScale(Double scale) {
            this.scale = scale;
        }

        public Long getCapacity() {
            return capacity;
        }

        public void setCapacity(Long capacity) {
            this.capacity = capacity;
        }

        public Long getRefillAmount() {
            return refillAmount;
        }

        public void setRefillAmount(Long refillAmount) {
            this.refillAmount = refillAmount;
        }

        public Duration getRefillPeriod() {
            return refillPeriod;
        }

        public void setRefillPeriod(Duration refillPeriod) {
            this.refillPeriod = refillPeriod;
        }
    }

    /** A quota reset: the edge of a cron in a zone. */
    public static class ResetDeclaration {

        /** Five-field cron whose edge resets the quota, such as "0 0 1 * *". */
        private String cron;

        /** IANA time zone of the cron; UTC when not set. */
        private String tz;

        public String getCron() {
            return cron;
        }

        public void setCron(String cron) {
            this.cron = cron;
        }

        public String getTz() {
            return tz;
        }

        public void setTz(String tz) {
            this.tz = tz;
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isStrictConsume() {
        return strictConsume;
    }

    public void setStrictConsume(boolean strictConsume) {
        this.strictConsume = strictConsume;
    }

    public StoreType getStore() {
        return store;
    }

    public void setStore(StoreType store) {
        this.store = store;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public Unavailable getOnUnavailable() {
        return onUnavailable;
    }

    public void setOnUnavailable(Unavailable onUnavailable) {
        this.onUnavailable = onUnavailable;
    }

    public Duration getStampTtl() {
        return stampTtl;
    }

    public void setStampTtl(Duration stampTtl) {
        this.stampTtl = stampTtl;
    }

    public Duration getStoreTimeout() {
        return storeTimeout;
    }

    public void setStoreTimeout(Duration storeTimeout) {
        this.storeTimeout = storeTimeout;
    }

    public Breaker getCircuitBreaker() {
        return circuitBreaker;
    }

    public DynamoDb getDynamodb() {
        return dynamodb;
    }

    public Redis getRedis() {
        return redis;
    }

    public Usage getUsage() {
        return usage;
    }

    public Audit getAudit() {
        return audit;
    }

    public Declarations getDeclarations() {
        return declarations;
    }

    public EndpointWrites getEndpointWrites() {
        return endpointWrites;
    }

    /** The write operations of the ratelimits endpoint, each off unless enabled. */
    public static class EndpointWrites {

        /** Whether POST /actuator/ratelimits/set-limits and delete-limits are offered. */
        private boolean limits;

        /** Whether POST /actuator/ratelimits/set-disabled (enabled, disabled, bypass, inherit) is offered. */
        private boolean switches;

        /** Whether POST /actuator/ratelimits/pause and resume are offered. */
        private boolean pauses;

        /** Whether POST /actuator/ratelimits/set-parent is offered. */
        private boolean parents;

        /** Whether DELETE /actuator/ratelimits/{entity}/{resource} (a bucket back to full) is offered. */
        private boolean resets;

        public boolean isResets() {
            return resets;
        }

        public void setResets(boolean resets) {
            this.resets = resets;
        }

        public boolean isLimits() {
            return limits;
        }

        public void setLimits(boolean limits) {
            this.limits = limits;
        }

        public boolean isSwitches() {
            return switches;
        }

        public void setSwitches(boolean switches) {
            this.switches = switches;
        }

        public boolean isPauses() {
            return pauses;
        }

        public void setPauses(boolean pauses) {
            this.pauses = pauses;
        }

        public boolean isParents() {
            return parents;
        }

        public void setParents(boolean parents) {
            this.parents = parents;
        }
    }

    /** How the declarations are applied at startup. */
    public static class Declarations {

        /**
         * apply: write what is added or changed; prune: also remove what earlier declarations wrote and the
         * declarations no longer have (never what was set through the admin API); verify: write nothing and report
         * drift.
         */
        private Mode mode = Mode.APPLY;

        /** In verify mode, whether drift between the declarations and the store fails startup or is logged. */
        private OnDrift onDrift = OnDrift.FAIL;

        /** The ways to apply declarations. */
        public enum Mode {
            /** Write what is added or changed. */
            APPLY,
            /** Also remove what earlier declarations wrote and the declarations no longer have. */
            PRUNE,
            /** Write nothing; report drift. */
            VERIFY
        }

        /** What verify mode does about drift. */
        public enum OnDrift {
            /** Fail startup. */
            FAIL,
            /** Log a warning. */
            WARN
        }

        public Mode getMode() {
            return mode;
        }

        public void setMode(Mode mode) {
            this.mode = mode;
        }

        public OnDrift getOnDrift() {
            return onDrift;
        }

        public void setOnDrift(OnDrift onDrift) {
            this.onDrift = onDrift;
        }
    }

    /** Usage history: counted in the process, written to the store every flush interval and on shutdown. */
    public static class Usage {

        /** Whether to record usage history. */
        private boolean enabled = true;

        /** How often each process writes what it counted (zero: only on shutdown). At most one write per bucket period. */
        private Duration flushInterval = Duration.ofSeconds(10);

        /** How long hourly usage is kept (DynamoDB TTL after its hour; Redis key expiry after each write). */
        private Duration hourRetention = Duration.ofDays(90);

        /** How long daily usage is kept (DynamoDB TTL after its day; Redis key expiry after each write). */
        private Duration dayRetention = Duration.ofDays(730);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getFlushInterval() {
            return flushInterval;
        }

        public void setFlushInterval(Duration flushInterval) {
            this.flushInterval = flushInterval;
        }

        public Duration getHourRetention() {
            return hourRetention;
        }

        public void setHourRetention(Duration hourRetention) {
            this.hourRetention = hourRetention;
        }

        public Duration getDayRetention() {
            return dayRetention;
        }

        public void setDayRetention(Duration dayRetention) {
            this.dayRetention = dayRetention;
        }
    }

    /** Audit log of configuration changes. */
    public static class Audit {

        /**
         * Who changes are attributed to when no user is signed in (no Spring Security principal); the application
         * name (spring.application.name) when unset, else "application".
         */
        private String actor;

        /**
         * Who changes applied from the declarations under zae.limiter are attributed to, and whose earlier changes
         * prune removes; "declarations:" followed by the application name (spring.application.name) when unset,
         * else "declarations".
         */
        private String declarationsActor;

        /** How long audit events are kept (DynamoDB TTL, Redis key expiry). */
        private Duration retention = Duration.ofDays(730);

        public String getActor() {
            return actor;
        }

        public void setActor(String actor) {
            this.actor = actor;
        }

        public String getDeclarationsActor() {
            return declarationsActor;
        }

        public void setDeclarationsActor(String declarationsActor) {
            this.declarationsActor = declarationsActor;
        }

        /** The declarations actor: the one set, else one named after the application (when it has a name). */
        String declarationsActorOf(String applicationName) {
            if (declarationsActor != null) {
                return declarationsActor;
            }
            return applicationName == null || applicationName.isBlank() ? "declarations"
                    : "declarations:" + applicationName;
        }

        public Duration getRetention() {
            return retention;
        }

        public void setRetention(Duration retention) {
            this.retention = retention;
        }
    }

    public Level getSystem() {
        return system;
    }

    public Map<String, Resource> getResources() {
        return resources;
    }

    public void setResources(Map<String, Resource> resources) {
        this.resources = resources;
    }

    public Map<String, EntityDeclaration> getEntities() {
        return entities;
    }

    public void setEntities(Map<String, EntityDeclaration> entities) {
        this.entities = entities;
    }
}
