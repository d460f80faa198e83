package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Names;
import dev.zaelimiter.Limit;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.autoconfigure.InvalidDeclarationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PatternParseException;
import org.springframework.web.util.pattern.PathPatternParser;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One rule of {@code zae.limiter.web.rules}, checked and compiled once: parsed path patterns, upper-case methods, a
 * parsed SpEL expression, an HMAC key. Stack-neutral: the servlet and the WebFlux filter read their requests through
 * a {@link RequestAccess}. Immutable and thread-safe.
 */
final class RateLimitRule {

    private static final Logger log = LoggerFactory.getLogger(RateLimitRule.class);

    static final String PREFIX = "zae.limiter.web.rules";
    static final List<String> SOURCES = List.of("header", "principal", "remote-address", "expression");
    static final int MIN_KEY_LENGTH = 16;

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    /** Read-only property access and instance methods on the request: no type references, constructors or beans. */
    private static final EvaluationContext SPEL_CONTEXT =
            SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods().build();

    /** How a rule reads what it needs of one web stack's request {@code R}. */
    interface RequestAccess<R> {

        /** The first value of header {@code name}, or {@code null}. */
        String header(R request, String name);

        /** The authenticated principal's name, or {@code null}. */
        String principalName(R request);

        /** The client's address as the stack reports it, or {@code null}. */
        String remoteAddress(R request);

        /** The root object of an entity expression. */
        Object expressionRoot(R request);
    }

    /** Where the entity id comes from. */
    private enum SourceKind { HEADER, PRINCIPAL, REMOTE_ADDRESS, EXPRESSION }

    /** Reads the raw entity id of a request; {@code null} or blank when the request carries none. */
    private record EntitySource(SourceKind kind, String header, Expression expression, String text) {

        <R> String read(R request, RequestAccess<R> access) {
            return switch (kind) {
                case HEADER -> access.header(request, header);
                case PRINCIPAL -> access.principalName(request);
                case REMOTE_ADDRESS -> remoteAddress(access.remoteAddress(request));
                case EXPRESSION -> evaluate(expression, text, access.expressionRoot(request));
            };
        }
    }

    private final PathPattern[] paths;
    /** The paths as literal patterns when every one is literal, else {@code null}. */
    private final LiteralPathPattern[] literalPaths;
    /** Upper-case method names, or {@code null} for every method. */
    private final String[] methods;
    private final String resource;
    private final Map<String, Long> consume;
    private final EntitySource source;
    /** What the entity comes from, for messages: "header 'X-Api-Key'", "the principal". */
    private final String sourceDescription;
    private final String defaultId;
    private final EntityHasher hasher;
    private final Duration maxWait;
    private final Unavailable onUnavailable;
    private final RateLimitHeaders.LastPolicy lastPolicy = new RateLimitHeaders.LastPolicy();

    private RateLimitRule(PathPattern[] paths, String[] methods, String resource, Map<String, Long> consume,
            EntitySource source, String sourceDescription, String defaultId, EntityHasher hasher, Duration maxWait,
            Unavailable onUnavailable) {
        this.maxWait = maxWait;
        this.onUnavailable = onUnavailable;
        this.paths = paths;
        this.literalPaths = literalPaths(paths);
        this.methods = methods;
        this.resource = resource;
        this.consume = consume;
        this.source = source;
        this.sourceDescription = sourceDescription;
        this.defaultId = defaultId;
        this.hasher = hasher;
    }

    // ---- request time

    boolean matchesMethod(String method) {
        if (methods == null) {
            return true;
        }
        for (String m : methods) {
            if (m.equals(method)) {
                return true;
            }
        }
        return false;
    }

    boolean matchesPath(PathContainer path) {
        for (PathPattern pattern : paths) {
            if (pattern.matches(path)) {
                return true;
            }
        }
        return false;
    }

    /** Whether every path pattern is literal, so that {@link #matchesLiteralPath} can answer for all of them. */
    boolean hasLiteralPaths() {
        return literalPaths != null;
    }

    /**
     * What {@link #matchesPath} answers for the path Spring parses from {@code uri}, for a rule that
     * {@linkplain #hasLiteralPaths() has literal paths} and a URI whose path within the application starts at
     * {@code from} as {@link LiteralPathPattern#start} found.
     */
    boolean matchesLiteralPath(String uri, int from) {
        for (LiteralPathPattern pattern : literalPaths) {
            if (pattern.matches(uri, from)) {
                return true;
            }
        }
        return false;
    }

    private static LiteralPathPattern[] literalPaths(PathPattern[] paths) {
        LiteralPathPattern[] literals = new LiteralPathPattern[paths.length];
        for (int i = 0; i < paths.length; i++) {
            literals[i] = LiteralPathPattern.of(paths[i]);
            if (literals[i] == null) {
                return null;
            }
        }
        return literals;
    }

    /**
     * The entity id the request counts against: read from the request and hashed when configured, else the default;
     * {@code null} when the request carries none and there is no default.
     */
    <R> String entityId(R request, RequestAccess<R> access) {
        String raw = source.read(request, access);
        if (raw == null || raw.isBlank()) {
            return defaultId;
        }
        return hasher == null ? raw : hasher.hash(raw);
    }

    /** Whether reading the entity may need the principal, which a reactive request resolves asynchronously. */
    boolean needsPrincipal() {
        return source.kind() == SourceKind.PRINCIPAL || source.kind() == SourceKind.EXPRESSION;
    }

    String resource() {
        return resource;
    }

    Map<String, Long> consume() {
        return consume;
    }

    /** How long a request may wait for capacity; zero refuses at once. */
    Duration maxWait() {
        return maxWait;
    }

    /** What a request does when the store cannot decide it; {@code null} keeps the limiter's policy. */
    Unavailable onUnavailable() {
        return onUnavailable;
    }

    /** The acquire request of a request counted against {@code entityId}. */
    AcquireRequest request(String entityId) {
        return AcquireRequest.of(entityId, resource).consume(consume).maxWait(maxWait).onUnavailable(onUnavailable);
    }

    /** Whether a request needs {@link #request}: it waits or has its own policy. */
    boolean needsRequest() {
        return !maxWait.isZero() || onUnavailable != null;
    }

    /** The policy header value this rule's requests last answered with. */
    RateLimitHeaders.LastPolicy lastPolicy() {
        return lastPolicy;
    }

    String sourceDescription() {
        return sourceDescription;
    }

    boolean hashed() {
        return hasher != null;
    }

    @Override
    public String toString() {
        return "RateLimitRule[" + Arrays.toString(paths) + (methods == null ? "" : " " + Arrays.toString(methods))
                + " -> " + resource + " by " + sourceDescription + (hasher != null ? " (hashed)" : "") + ", consume "
                + consume + "]";
    }

    // ---- startup

    /**
     * Checks and compiles every rule.
     *
     * @throws InvalidDeclarationException for the first property that breaks a rule, naming it
     */
    static List<RateLimitRule> compile(ZaeLimiterWebProperties properties) {
        List<RateLimitRule> rules = new ArrayList<>(properties.getRules().size());
        for (int i = 0; i < properties.getRules().size(); i++) {
            rules.add(compile(PREFIX + "[" + i + "]", properties.getRules().get(i)));
        }
        return List.copyOf(rules);
    }

    static RateLimitRule compile(String path, ZaeLimiterWebProperties.Rule rule) {
        if (rule == null) {
            throw new InvalidDeclarationException(path, "the rule is empty; give it paths, a resource, an entity"
                    + " source and what it consumes");
        }
        PathPattern[] patterns = paths(path + ".paths", rule.getPaths());
        String[] methods = methods(path + ".methods", rule.getMethods());
        String resource = rule.getResource();
        if (resource == null || resource.isBlank()) {
            throw new InvalidDeclarationException(path + ".resource", "a rule needs the resource whose limits its"
                    + " requests consume, such as 'api'");
        }
        InvalidDeclarationException.check(path + ".resource", () -> Names.resource("resource", resource));
        Map<String, Long> consume = consume(path + ".consume", rule.getConsume());
        Duration maxWait = rule.getMaxWait() == null ? Duration.ZERO : rule.getMaxWait();
        if (maxWait.isNegative()) {
            throw new InvalidDeclarationException(path + ".max-wait", "'" + maxWait + "' is negative; write a"
                    + " duration such as 2s, or 0 to refuse at once");
        }

        ZaeLimiterWebProperties.Entity entity = rule.getEntity();
        String entityPath = path + ".entity";
        if (entity == null) {
            entity = new ZaeLimiterWebProperties.Entity();
        }
        String defaultId = entity.getDefault();
        if (defaultId != null) {
            InvalidDeclarationException.check(entityPath + ".default", () -> Names.entityId("default", defaultId));
        }
        EntityHasher hasher = hasher(entityPath + ".hash", entity.getHash());
        String sourceName = entity.getSource() == null ? null : entity.getSource().trim().toLowerCase(Locale.ROOT);
        if (sourceName == null || sourceName.isEmpty()) {
            throw new InvalidDeclarationException(entityPath + ".source", "a rule needs an entity source: one of "
                    + SOURCES);
        }
        EntitySource source;
        String description;
        switch (sourceName) {
            case "header" -> {
                String header = entity.getHeader();
                if (header == null || header.isBlank()) {
                    throw new InvalidDeclarationException(entityPath + ".header", "source 'header' needs the name of"
                            + " the request header that carries the entity id, such as X-Api-Key");
                }
                String name = header.trim();
                if (!isToken(name)) {
                    throw new InvalidDeclarationException(entityPath + ".header", "'" + name + "' is not a valid"
                            + " header name (letters, digits and ! # $ % & ' * + - . ^ _ ` | ~)");
                }
                source = new EntitySource(SourceKind.HEADER, name, null, null);
                description = "header '" + name + "'";
            }
            case "principal" -> {
                source = new EntitySource(SourceKind.PRINCIPAL, null, null, null);
                description = "the authenticated principal";
            }
            case "remote-address" -> {
                source = new EntitySource(SourceKind.REMOTE_ADDRESS, null, null, null);
                description = "the remote address";
            }
            case "expression" -> {
                Expression expression = expression(entityPath + ".expression", entity.getExpression());
                String text = entity.getExpression().trim();
                source = new EntitySource(SourceKind.EXPRESSION, null, expression, text);
                description = "expression '" + text + "'";
            }
            default -> throw new InvalidDeclarationException(entityPath + ".source", "'" + entity.getSource()
                    + "' is not an entity source; write one of " + SOURCES);
        }
        return new RateLimitRule(patterns, methods, resource, consume, source, description, defaultId, hasher,
                maxWait, rule.getOnUnavailable());
    }

    private static PathPattern[] paths(String path, List<String> paths) {
        if (paths == null || paths.isEmpty()) {
            throw new InvalidDeclarationException(path, "a rule needs at least one path pattern, such as /api/**"
                    + " (write /** for every path)");
        }
        PathPattern[] patterns = new PathPattern[paths.size()];
        for (int i = 0; i < paths.size(); i++) {
            String p = paths.get(i);
            String itemPath = path + "[" + i + "]";
            if (p == null || p.isBlank() || !p.trim().startsWith("/")) {
                throw new InvalidDeclarationException(itemPath, "'" + p + "' is not a path pattern: it starts with /,"
                        + " such as /api/**");
            }
            try {
                patterns[i] = PathPatternParser.defaultInstance.parse(p.trim());
            } catch (PatternParseException e) {
                throw new InvalidDeclarationException(itemPath, "'" + p + "' is not a valid PathPattern: "
                        + e.getMessage() + " (at position " + e.getPosition() + ")");
            }
        }
        return patterns;
    }

    private static String[] methods(String path, List<String> methods) {
        if (methods == null || methods.isEmpty()) {
            return null;
        }
        List<String> known = Arrays.stream(HttpMethod.values()).map(HttpMethod::name).toList();
        String[] result = new String[methods.size()];
        for (int i = 0; i < methods.size(); i++) {
            String m = methods.get(i) == null ? "" : methods.get(i).trim().toUpperCase(Locale.ROOT);
            if (!known.contains(m)) {
                throw new InvalidDeclarationException(path + "[" + i + "]", "'" + methods.get(i) + "' is not an HTTP"
                        + " method; write one of " + known + ", or leave methods empty for every method");
            }
            result[i] = m;
        }
        return result;
    }

    private static Map<String, Long> consume(String path, Map<String, Long> consume) {
        if (consume == null || consume.isEmpty()) {
            return Map.of();
        }
        Map<String, Long> result = new LinkedHashMap<>();
        consume.forEach((name, amount) -> {
            String itemPath = path + "." + name;
            InvalidDeclarationException.check(itemPath, () -> Names.limitName("limit name", name));
            if (amount == null || amount < 0 || amount > Limit.MAX_TOKENS) {
                throw new InvalidDeclarationException(itemPath, "an amount is a whole number from 0 to "
                        + Limit.MAX_TOKENS + ", found " + amount);
            }
            result.put(name, amount);
        });
        // one amount as an immutable map of the JDK, which a request keeps as it is instead of copying it
        return result.size() == 1 ? Map.copyOf(result) : Collections.unmodifiableMap(result);
    }

    private static EntityHasher hasher(String path, ZaeLimiterWebProperties.Hash hash) {
        if (hash == null || !hash.isEnabled()) {
            return null;
        }
        String key = hash.getKey();
        if (key == null || key.isBlank()) {
            throw new InvalidDeclarationException(path + ".key", "hashing is enabled but no key is set; set a secret"
                    + " of at least " + MIN_KEY_LENGTH + " characters (from an environment variable, say) or disable"
                    + " hashing");
        }
        if (key.length() < MIN_KEY_LENGTH) {
            // never echo the key
            throw new InvalidDeclarationException(path + ".key", "the key is shorter than " + MIN_KEY_LENGTH
                    + " characters; use a longer random secret");
        }
        return new EntityHasher(key);
    }

    private static Expression expression(String path, String text) {
        if (text == null || text.isBlank()) {
            throw new InvalidDeclarationException(path, "source 'expression' needs a SpEL expression over the"
                    + " request, such as getHeader('X-Org')");
        }
        try {
            return PARSER.parseExpression(text.trim());
        } catch (ParseException e) {
            throw new InvalidDeclarationException(path, "'" + text + "' is not a valid SpEL expression: "
                    + e.getMessage());
        }
    }

    // ---- sources

    /**
     * The remote address as an entity id: an IPv6 address that starts with {@code :} (such as {@code ::1}) gets a
     * leading {@code 0}, and a zone separator {@code %} becomes {@code _}, since entity ids start with a letter or
     * digit and have no {@code %}.
     */
    static String remoteAddress(String address) {
        if (address == null || address.isEmpty()) {
            return null;
        }
        if (address.charAt(0) == ':') {
            address = "0" + address;
        }
        return address.indexOf('%') >= 0 ? address.replace('%', '_') : address;
    }

    private static String evaluate(Expression expression, String text, Object request) {
        try {
            Object value = expression.getValue(SPEL_CONTEXT, request);
            return value == null ? null : value.toString();
        } catch (EvaluationException e) {
            log.debug("entity expression '{}' failed, treating the entity as missing: {}", text, e.getMessage());
            return null;
        }
    }

    private static boolean isToken(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return !name.isEmpty();
    }
}
