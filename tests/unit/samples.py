"""Wire objects as the service sends them, shared by the client unit tests."""

from __future__ import annotations

ISO = "2026-01-01T00:00:00Z"

DATASET = {"id": "ds_1", "name": "Oat milk", "created_at": ISO}
DATASET_READ = {
    **DATASET,
    "updated_at": ISO,
    "mentions_count": 120,
    "images_count": 3,
    "videos_count": 9,
    "url": "https://app.test/datasets/ds_1",
}
DATASET_RUN = {
    "id": "dsr_1",
    "dataset_id": "ds_1",
    "status": {"type": "pending"},
    "count": 50,
    "requested_count": 50,
    "created_at": ISO,
}
AUDIENCE_DATASET = {"id": "ad_1", "name": "fans", "created_at": ISO}
AUDIENCE_RUN = {
    "id": "adr_1",
    "audience_dataset_id": "ad_1",
    "source_dataset_id": "ds_1",
    "created_at": ISO,
    "status": {"type": "pending"},
}
PROFILE = {
    "id": "pr_1",
    "run_id": "adr_1",
    "source": "tiktok",
    "username": "oat_lover",
    "is_verified": True,
    "created_at": 0,
}
MENTION = {
    "source": "reddit",
    "id": "t3_a",
    "title": "Oat milk foam",
    "num_likes": 4,
    "created_at": 0,
}
PARAMETER = {
    "id": "cp_1",
    "name": "price",
    "instructions": "The price quoted",
    "value_type": "string",
    "created_at": 0,
    "updated_at": 0,
}
PARAMETER_RUN = {
    "id": "cpr_1",
    "custom_parameter_id": "cp_1",
    "scope": {"kind": "dataset", "id": "ds_1"},
    "status": {"type": "processing"},
    "mentions_total": 3,
    "mentions_done": 1,
    "mentions_error": 0,
    "mentions_remaining": 2,
    "created_at": 0,
    "updated_at": 0,
}
AGENT = {
    "id": "ta_1",
    "name": "watch",
    "instructions": "Complaints",
    "dataset_ids": ["ds_1"],
    "count": 10,
    "num_comments_per_post": 0,
    "integrations": [],
    "paused": False,
    "schedule": {"frequency": "daily", "time": "08:00"},
    "created_at": 0,
}
TRACKING_RUN = {
    "id": "tar_1",
    "agent_id": "ta_1",
    "created_at": 0,
    "dataset_run_ids": ["dsr_1"],
    "status": {"type": "pending"},
}
ALERT = {
    "message_id": "tam_1",
    "agent_id": "ta_1",
    "agent_name": "watch",
    "comment_count": 0,
    "new_mention_count": 2,
    "sentiment_score": -0.2,
    "short_preview_message": "2 new",
    "created_at": 0,
    "text": "See [1]",
    "references": [
        {
            "type": "post",
            "source": "reddit",
            "id": "t3_a",
            "citation": 1,
            "start_index": 4,
            "end_index": 7,
        }
    ],
}
CHAT = {"id": "ch_1", "name": None, "tracking_agent_id": None, "created_at": 0}
REPLY = {
    "id": "msg_2",
    "role": "assistant",
    "text": "Mostly positive [1]",
    "created_at": 0,
    "status": "completed",
    "references": [
        {
            "type": "post",
            "source": "reddit",
            "id": "t3_a",
            "citation": 1,
            "start_index": 16,
            "end_index": 19,
        }
    ],
}
ACCEPTED = {"chat_id": "ch_1", "message_id": "msg_2", "status": "working"}
DETECTION = {
    "run_id": "pdr_1",
    "collection_id": "ds_1",
    "name": "why",
    "research_question": "Why?",
    "created_at": 0,
    "status": {"type": "pending", "steps": []},
}
PATTERN = {
    "id": "pt_1",
    "summary": "Two themes",
    "items": [{"item_id": "pti_1", "title": "Foam", "synopsis": "Baristas", "post_count": 3}],
}
PATTERN_ITEM = {
    "item_id": "pti_1",
    "title": "Foam",
    "post_count": 1,
    "posts": [{"type": "post", "source": "reddit", "id": "t3_a"}],
}
PREVIEW = {
    "preview_id": "rp_1",
    "type": "prompt",
    "estimated_number_of_results": 1200,
    "posts": [{"position": 1, "source": "reddit", "url": "https://reddit.test/a"}],
}
ME = {
    "id": "usr_1",
    "account_id": "acc_1",
    "email": "owner@example.test",
    "created_at": 0,
    "usage": {"credits_used": "12.500000", "balance_used": 0.245},
}
USAGE_ROW = {
    "id": 1,
    "category": "mention",
    "quantity": 0.98,
    "created_at": 0,
    "quantity_credits": "50.000000",
    "credit_rate_usd": "0.0196",
    "billing_catalog_version": "2026-01-01",
    "credit_value_basis": "snapshot",
}
PRICES = {
    "prices_credits": {
        "mention": "1.000000",
        "audience_profile": "3.000000",
        "post_processing": "0.500000",
        "preview_generation": "1.000000",
    },
    "billing": {
        "unit": "credits",
        "credit_rate_usd": "0.0196",
        "catalog_version": "2026-01-01",
        "precision": 6,
    },
    "currency": "usd",
    "rate": None,
    "prices": {
        "mention": 0.0196,
        "audience_profile": 0.0588,
        "post_processing": 0.0098,
        "preview_generation": 0.0196,
    },
}
PROMPT_QUERY = {"type": "prompt", "sources": ["reddit", "tiktok"], "search_query": "oat milk"}
