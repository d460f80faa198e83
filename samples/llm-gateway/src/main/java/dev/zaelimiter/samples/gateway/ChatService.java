package dev.zaelimiter.samples.gateway;

import dev.zaelimiter.Lease;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimitContext;
import dev.zaelimiter.spring.RateLimited;
import org.springframework.stereotype.Service;

import java.util.List;

/** Sends chat requests to the model, within the limits of the caller's key (and its organisation's). */
@Service
public class ChatService {

    private final ModelClient model;

    public ChatService(ModelClient model) {
        this.model = model;
    }

    /**
     * Before the method runs, one request ({@code rpm}) and the token estimate ({@code tpm} and the {@code monthly}
     * quota) are taken from the key's buckets, and, because the key cascades, from its organisation's. Once the model
     * has answered, the reservation is corrected to the real count. Over a limit, {@code RateLimitExceededException}
     * is thrown and the model is not called; if the model call fails, everything is given back.
     */
    @RateLimited(resource = "gpt-4o", entity = "#keyId", consume = {
            @Consume(limit = "rpm"),
            @Consume(limit = "tpm", amount = "@modelClient.estimateTokens(#request)"),
            @Consume(limit = "monthly", amount = "@modelClient.estimateTokens(#request)")})
    public ChatResponse complete(String keyId, ChatRequest request) {
        long estimate = model.estimateTokens(request);
        ModelClient.Completion completion = model.complete(request);

        Lease lease = RateLimitContext.currentLease().orElseThrow();
        long correction = completion.totalTokens() - estimate;       // zero or less: the estimate is an upper bound
        lease.adjust("tpm", correction);
        lease.adjust("monthly", correction);

        return new ChatResponse(ModelClient.MODEL, completion.text(),
                new ChatResponse.Usage(completion.promptTokens(), completion.completionTokens(),
                        completion.totalTokens()),
                estimate, overdrawn(keyId, lease.statuses()));
    }

    /** Soft limits in debt once the estimate was reserved: the key's by name, its organisation's as parent.NAME. */
    private static List<String> overdrawn(String keyId, List<LimitStatus> statuses) {
        return statuses.stream()
                .filter(LimitStatus::overdrawn)
                .map(s -> s.entityId().equals(keyId) ? s.limitName() : "parent." + s.limitName())
                .toList();
    }
}
