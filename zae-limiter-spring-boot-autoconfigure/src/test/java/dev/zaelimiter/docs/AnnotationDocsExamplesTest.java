package dev.zaelimiter.docs;

import dev.zaelimiter.Lease;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.aop.RateLimitedAdvisor;
import dev.zaelimiter.autoconfigure.aop.ZaeLimiterAopAutoConfiguration;
// tag::annotationImports[]
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimitContext;
import dev.zaelimiter.spring.RateLimited;
// end::annotationImports[]
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Java examples of {@code docs/annotation.md}. The code between {@code // tag::NAME[]} and
 * {@code // end::NAME[]} is what the page shows under {@code <!-- example: NAME -->}; {@code DocsSnippetsTest} in
 * zae-limiter-core checks that the two stay identical. The limits are the page's YAML, read from the page.
 */
@DisplayName("docs examples: annotation.md")
class AnnotationDocsExamplesTest {

    private final MutableClock clock = MutableClock.start();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterAopAutoConfiguration.class))
            .withBean(Clock.class, () -> clock)
            .withPropertyValues("zae.limiter.store=memory")
            .withInitializer(DocsYaml.initializer("annotation.md", "annotation-limits"));

    @Test
    void theDocumentedPropertiesAreTheDefaults() {
        runner.withInitializer(DocsYaml.initializer("annotation.md", "annotation-properties"))
                .run(context -> {
                    assertThat(context).hasSingleBean(RateLimitedAdvisor.class);
                    assertThat(context.getBean(RateLimitedAdvisor.class).getOrder())
                            .isEqualTo(RateLimitedAdvisor.DEFAULT_ORDER);
                });
    }

    @Test
    void firstAnnotation() {
        runner.withBean(ChatService.class).run(context -> {
            ChatService chat = context.getBean(ChatService.class);
            // tag::annotationRejection[]
            chat.reply("alice", "hello");
            chat.reply("alice", "how are you?");
            assertThatThrownBy(() -> chat.reply("alice", "still there?"))    // the method does not run
                    .isInstanceOfSatisfying(RateLimitExceededException.class, e ->
                            assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(30)));
            chat.reply("bob", "hello");                                      // bob has his own bucket
            // end::annotationRejection[]
        });
    }

    @Test
    void expressionsAndAdjust() {
        runner.withBean(CompletionService.class).withBean("apiKeys", ApiKeys.class).run(context -> {
            CompletionService completions = context.getBean(CompletionService.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            // tag::annotationAdjustUsage[]
            completions.complete("acme_3f9a", "hello", 500);   // reserves 500 tokens, the model uses 50
            assertThat(limiter.available("acme", "gpt-4")).isEqualTo(Map.of("rpm", 59L, "tpm", 9_950L));
            // end::annotationAdjustUsage[]
        });
    }

    @Test
    void repeatable() {
        runner.withBean(SearchService.class).run(context -> {
            SearchService search = context.getBean(SearchService.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            // tag::annotationRepeatableUsage[]
            search.search("alice", "cats");
            search.search("alice", "dogs");
            search.search("bob", "birds");                      // all users together: 3 of 3
            assertThatThrownBy(() -> search.search("carol", "fish"))
                    .isInstanceOf(RateLimitExceededException.class)
                    .hasMessageContaining("all-users/search/rpm");
            // carol's own token was taken first, then given back when the shared limit refused
            assertThat(limiter.available("carol", "search")).containsEntry("rpm", 10L);
            // end::annotationRepeatableUsage[]
        });
    }

    @Test
    void classLevel() {
        runner.withBean(ReportService.class).run(context -> {
            ReportService reports = context.getBean(ReportService.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            // tag::annotationClassLevelUsage[]
            reports.daily("acct-1");
            reports.monthly("acct-1");
            reports.yearly("acct-1");
            assertThat(limiter.available("acct-1", "reports")).containsEntry("rpm", 20L - 1 - 1 - 5);
            // end::annotationClassLevelUsage[]
        });
    }

    @Test
    void rollbackOn() {
        runner.withBean(ImportService.class).withBean(Storage.class, () -> (tenant, csv) -> {
            throw new UncheckedIOException(new IOException("disk full"));
        }).run(context -> {
            ImportService imports = context.getBean(ImportService.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            // tag::annotationRollbackOnUsage[]
            // with a storage that is down
            assertThatThrownBy(() -> imports.importCsv("acme", " "))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> imports.importCsv("acme", "id,name\n1,Ada"))
                    .isInstanceOf(UncheckedIOException.class);
            assertThat(limiter.available("acme", "imports")).containsEntry("rpm", 9L);   // only the empty file cost
            // end::annotationRollbackOnUsage[]
        });
    }

    @Test
    void onUnavailable() {
        SwitchableStore store = new SwitchableStore();
        runner.withBean(AccountService.class).withBean(LimiterStore.class, () -> store)
                .withPropertyValues("zae.limiter.on-unavailable=block").run(context -> {
                    AccountService accounts = context.getBean(AccountService.class);
                    assertThat(accounts.signIn("ada")).isEqualTo("welcome ada");
                    store.down();
                    // tag::annotationOnUnavailableUsage[]
                    // with the store out
                    assertThatThrownBy(() -> accounts.signIn("ada")).isInstanceOf(StoreUnavailableException.class);
                    assertThat(accounts.profile("ada")).isEqualTo("profile of ada");
                    // end::annotationOnUnavailableUsage[]
                    store.up();
                });
        runner.withBean(AccountService.class).withBean(LimiterStore.class, () -> store)
                .withPropertyValues("zae.limiter.on-unavailable=allow").run(context -> {
                    AccountService accounts = context.getBean(AccountService.class);
                    store.down();
                    assertThatThrownBy(() -> accounts.signIn("ada")).isInstanceOf(StoreUnavailableException.class);
                    assertThat(accounts.profile("ada")).isEqualTo("profile of ada");
                });
    }

    @Test
    void completableFuture() {
        runner.withBean(SummaryService.class).run(context -> {
            SummaryService summaries = context.getBean(SummaryService.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            // tag::annotationAsyncUsage[]
            assertThat(summaries.summarize("alice", "a".repeat(300)).join()).hasSize(100);
            assertThat(limiter.available("alice", "summaries")).containsEntry("tpm", 1000L - 300);

            CompletableFuture<String> failed = summaries.summarize("bob", "");
            assertThatThrownBy(failed::join).isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(IllegalArgumentException.class);
            assertThat(limiter.available("bob", "summaries")).containsEntry("tpm", 1000L);  // rolled back
            // end::annotationAsyncUsage[]
        });
    }

    @Test
    void programmaticScope() {
        runner.run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            String userId = "alice";
            // tag::annotationOpenScope[]
            try (Lease lease = limiter.acquire(userId, "chat", Map.of("rpm", 1L));
                 RateLimitContext.Scope scope = RateLimitContext.open("chat", lease)) {
                assertThat(RateLimitContext.currentLease()).containsSame(lease);
            }
            assertThat(RateLimitContext.currentLease()).isEmpty();
            // end::annotationOpenScope[]
        });
    }
}

// tag::annotationService[]
@Service
class ChatService {

    @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
    public String reply(String userId, String message) {
        return "echo: " + message;
    }
}
// end::annotationService[]

// tag::annotationAdjust[]
@Service
class CompletionService {

    @RateLimited(resource = "gpt-4", entity = "@apiKeys.owner(#apiKey)",
            consume = {@Consume(limit = "rpm"), @Consume(limit = "tpm", amount = "#maxTokens")})
    public String complete(String apiKey, String prompt, int maxTokens) {
        int used = Math.min(maxTokens, prompt.length() * 10);   // what the model really used
        RateLimitContext.currentLease().ifPresent(lease -> lease.adjust("tpm", used - maxTokens));
        return "answer to " + prompt;
    }
}

@Component("apiKeys")
class ApiKeys {

    /** The organisation that owns a key such as "acme_3f9a". */
    public String owner(String apiKey) {
        return apiKey.substring(0, apiKey.indexOf('_'));
    }
}
// end::annotationAdjust[]

// tag::annotationRepeatable[]
@Service
class SearchService {

    @RateLimited(resource = "search", entity = "#userId", consume = @Consume(limit = "rpm"))
    @RateLimited(resource = "search", entity = "'all-users'", consume = @Consume(limit = "rpm"))
    public List<String> search(String userId, String query) {
        return List.of(query + " 1", query + " 2");
    }
}
// end::annotationRepeatable[]

// tag::annotationClassLevel[]
@Service
@RateLimited(resource = "reports", entity = "#accountId", consume = @Consume(limit = "rpm"))
class ReportService {

    public String daily(String accountId) {
        return "daily report";
    }

    public String monthly(String accountId) {
        return "monthly report";
    }

    // replaces the class's annotation: 5 tokens, not 5 + 1
    @RateLimited(resource = "reports", entity = "#accountId", consume = @Consume(limit = "rpm", amount = "5"))
    public String yearly(String accountId) {
        return "yearly report";
    }
}
// end::annotationClassLevel[]

// tag::annotationRollbackOn[]
@Service
class ImportService {

    private final Storage storage;

    ImportService(Storage storage) {
        this.storage = storage;
    }

    @RateLimited(resource = "imports", entity = "#tenant", consume = @Consume(limit = "rpm"),
            rollbackOn = UncheckedIOException.class)
    public void importCsv(String tenant, String csv) {
        if (csv.isBlank()) {
            throw new IllegalArgumentException("empty file");   // the caller's fault: the token stays spent
        }
        storage.save(tenant, csv);                                // our fault (UncheckedIOException): given back
    }
}

interface Storage {

    void save(String tenant, String csv);
}
// end::annotationRollbackOn[]

// tag::annotationOnUnavailable[]
@Service
class AccountService {

    @RateLimited(resource = "accounts", entity = "#user", consume = @Consume(limit = "rpm"),
            onUnavailable = Unavailable.BLOCK)                   // fails closed: no guessing without the store
    public String signIn(String user) {
        return "welcome " + user;
    }

    @RateLimited(resource = "accounts", entity = "#user", consume = @Consume(limit = "rpm"),
            onUnavailable = Unavailable.ALLOW)                   // fails open: a read may go on unrecorded
    public String profile(String user) {
        return "profile of " + user;
    }
}
// end::annotationOnUnavailable[]

// tag::annotationAsync[]
@Service
class SummaryService {

    @RateLimited(resource = "summaries", entity = "#userId", consume = @Consume(limit = "tpm", amount = "100"))
    public CompletableFuture<String> summarize(String userId, String text) {
        Lease lease = RateLimitContext.currentLease().orElseThrow();   // here, not inside the async body
        return CompletableFuture.supplyAsync(() -> {
            if (text.isEmpty()) {
                throw new IllegalArgumentException("nothing to summarize");
            }
            lease.adjust("tpm", text.length() - 100);                  // the real cost
            return text.substring(0, Math.min(100, text.length()));
        });
    }
}
// end::annotationAsync[]
